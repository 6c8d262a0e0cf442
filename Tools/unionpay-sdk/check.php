<?php
// Runs UnionPay's official PHP SDK (upacp_demo, not in this repository) against
// `paysheet acquirer-sandbox`: the SDK signs, posts, validates answers and notifications,
// encrypts the card number, and reads the reconciliation file, with its own code.
// Usage (see unionpay_php_sdk.sh): php check.php SDK_DIR GATEWAY_URL NOTIFY_URL NOTIFY_LOG MER_ID
namespace com\unionpay\acp\sdk;
error_reporting(E_ERROR | E_PARSE);
include_once __DIR__ . '/compat.php';
[$_, $sdk, $gateway, $notifyUrl, $notifyLog, $merId] = $argv;
include_once $sdk . '/sdk/acp_service.php';
$passed = 0; $failed = 0;
function check($ok, $what) { global $passed, $failed; if ($ok) { $passed++; echo "PASS $what\n"; } else { $failed++; echo "FAIL $what\n"; } }
function beijing() { $d = new \DateTime('now', new \DateTimeZone('Asia/Shanghai')); return $d->format('YmdHis'); }

$txnTime = beijing();
$orderId = 'SDK' . $txnTime . rand(100, 999);
// The card data as Paysheet's cardTransData composite carries it: the card number encrypted by
// itself, the cryptogram and expiry in encryptedInfo (as getCustomerInfoWithEncrypt does).
$accNo = '4895370000000007';
$info = AcpService::encryptData('expired=3012&cryptogram=' . base64_encode(random_bytes(20)));
$cardTransData = base64_encode('{accNo=' . AcpService::encryptData($accNo) . '&eci=07&encryptedInfo=' . $info . '}');
$params = array(
    'version' => '5.1.0', 'encoding' => 'utf-8', 'txnType' => '01', 'txnSubType' => '01', 'bizType' => '000802',
    'accessType' => '0', 'channelType' => '07', 'merId' => $merId, 'orderId' => $orderId, 'txnTime' => $txnTime,
    'txnAmt' => '100', 'currencyCode' => '156', 'backUrl' => $notifyUrl, 'cardTransData' => $cardTransData,
    'encryptCertId' => AcpService::getEncryptCertId(), 'signMethod' => SDKConfig::getSDKConfig()->signMethod,
);
AcpService::sign($params);
check(strlen($params['certId']) > 0 && ctype_digit($params['certId']), "the SDK reads the sandbox merchant certificate's serial as a decimal certId ({$params['certId']})");
$answer = AcpService::post($params, $gateway . '/gateway/api/backTransReq.do');
check(is_array($answer) && count($answer) > 0, 'the sandbox answers the SDK\'s consume');
check(AcpService::validate($answer), 'the SDK validates the sandbox\'s answer (signPubKeyCert through middle and root, owner 00040000:SIGN)');
check(($answer['respCode'] ?? '') == '00', "the consume is accepted: respCode " . ($answer['respCode'] ?? '') . ' ' . ($answer['respMsg'] ?? ''));

sleep(1);
$query = array(
    'version' => '5.1.0', 'encoding' => 'utf-8', 'txnType' => '00', 'txnSubType' => '00', 'bizType' => '000000',
    'accessType' => '0', 'channelType' => '07', 'merId' => $merId, 'orderId' => $orderId, 'txnTime' => $txnTime,
    'signMethod' => SDKConfig::getSDKConfig()->signMethod,
);
AcpService::sign($query);
$q = AcpService::post($query, $gateway . '/gateway/api/queryTrans.do');
check(AcpService::validate($q) && ($q['respCode'] ?? '') == '00' && ($q['origRespCode'] ?? '') == '00',
      'the SDK\'s query is answered origRespCode ' . ($q['origRespCode'] ?? '') . ' and validates');

$notes = @file_get_contents($notifyLog);
check($notes !== false && strpos($notes, "VALID $orderId") !== false, 'the notification posted to backUrl validates in the SDK (' . trim((string)$notes) . ')');

$update = array(
    'version' => '5.1.0', 'encoding' => 'utf-8', 'txnType' => '95', 'txnSubType' => '00', 'bizType' => '000000',
    'accessType' => '0', 'channelType' => '07', 'certType' => '01', 'merId' => $merId, 'orderId' => 'CERT' . $txnTime,
    'txnTime' => $txnTime, 'signMethod' => SDKConfig::getSDKConfig()->signMethod,
);
AcpService::sign($update);
$u = AcpService::post($update, $gateway . '/gateway/api/backTransReq.do');
check(AcpService::validate($u) && ($u['respCode'] ?? '') == '00' && AcpService::updateEncryptCert($u) === 0,
      'the SDK\'s encryption certificate update (txnType 95) validates and finds the certificate it has (updateEncryptCert 0)');

// The reconciliation file of today, the sandbox's clock moved a day on (PUT /sandbox/clock).
$ctx = stream_context_create(['http' => ['method' => 'PUT', 'content' => '{"fileOffsetSeconds": 86400}']]);
file_get_contents($gateway . '/sandbox/clock', false, $ctx);
$file = array(
    'version' => '5.1.0', 'encoding' => 'utf-8', 'txnType' => '76', 'txnSubType' => '01', 'bizType' => '000000',
    'accessType' => '0', 'fileType' => '00', 'merId' => $merId, 'settleDate' => substr($txnTime, 4, 4), 'txnTime' => beijing(),
    'signMethod' => SDKConfig::getSDKConfig()->signMethod,
);
AcpService::sign($file);
$f = AcpService::post($file, $gateway . '/');
check(AcpService::validate($f) && ($f['respCode'] ?? '') == '00', 'the SDK\'s file transfer is answered 00 and validates');
$dir = sys_get_temp_dir() . '/paysheet-sdk-file-' . getmypid() . '/';
@mkdir($dir);
check(AcpService::deCodeFileContent($f, $dir) === true, "the SDK decodes fileContent into {$f['fileName']}");
$zip = new \ZipArchive();
$rows = array();
if ($zip->open($dir . $f['fileName']) === true) {
    $zip->extractTo($dir);
    $zip->close();
    $lengths = array(3, 11, 11, 6, 10, 19, 12, 4, 2, 21, 2, 32, 2, 6, 10, 13, 13, 4, 15, 2, 2, 6, 2, 4, 32, 1, 21, 15, 1, 15, 32, 13, 13, 8, 32, 13, 13, 12, 2, 1, 32, 98);
    foreach (scandir($dir) as $name) {
        if (substr($name, 0, 3) == 'INN' && substr($name, 11, 3) == 'ZM_') {
            foreach (file($dir . $name) as $line) {   // the demo's parse_file_zm
                $at = 0; $row = array();
                foreach ($lengths as $n) { $row[] = substr($line, $at, $n); $at += $n + 1; }
                $rows[] = $row;
            }
        }
    }
}
$mine = array_values(array_filter($rows, function ($r) use ($orderId) { return trim($r[11]) == $orderId; }));
check(count($mine) == 1 && $mine[0][6] == '000000000100' && $mine[0][19] == '01',
      'the demo\'s ZM parser finds the consume: orderId, amount ' . ($mine[0][6] ?? '?') . ', txnType ' . ($mine[0][19] ?? '?'));
echo "$passed passed, $failed failed\n";
exit($failed ? 1 : 0);

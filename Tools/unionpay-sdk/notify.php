<?php
// backUrl for check.php: validates UnionPay notifications with the official SDK and logs the result.
namespace com\unionpay\acp\sdk;
error_reporting(E_ERROR | E_PARSE);
// The SDK was written for PHP 5 and 7: each() left PHP in 8.0. The same behaviour, for its loops.
function each(array &$array) {
    $key = key($array);
    if ($key === null) { return false; }
    $value = current($array);
    next($array);
    return array(1 => $value, 'value' => $value, 0 => $key, 'key' => $key);
}
// And count() of a string was 1 (PHP 7), which its createLinkString relies on.
function count($value) { return is_array($value) || $value instanceof \Countable ? \count($value) : ($value === null ? 0 : 1); }
include_once getenv('UNIONPAY_SDK') . '/sdk/acp_service.php';
$ok = AcpService::validate($_POST);
file_put_contents(getenv('NOTIFY_LOG'), ($ok ? 'VALID ' : 'INVALID ') . ($_POST['orderId'] ?? '') . ' ' . ($_POST['respCode'] ?? '') . "\n", FILE_APPEND);
echo 'ok';

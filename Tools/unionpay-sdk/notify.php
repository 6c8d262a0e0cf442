<?php
// backUrl for check.php: validates UnionPay notifications with the official SDK and logs the result.
namespace com\unionpay\acp\sdk;
error_reporting(E_ERROR | E_PARSE);
include_once __DIR__ . '/compat.php';
include_once getenv('UNIONPAY_SDK') . '/sdk/acp_service.php';
$ok = AcpService::validate($_POST);
file_put_contents(getenv('NOTIFY_LOG'), ($ok ? 'VALID ' : 'INVALID ') . ($_POST['orderId'] ?? '') . ' ' . ($_POST['respCode'] ?? '') . "\n", FILE_APPEND);
echo 'ok';

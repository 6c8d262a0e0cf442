<?php
// PHP 8 compatibility for UnionPay's PHP SDK (written for PHP 5 and 7), in its namespace:
// included before the SDK by check.php and notify.php.
namespace com\unionpay\acp\sdk;

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

#!/usr/bin/env bash
# Runs UnionPay's official PHP SDK against `paysheet acquirer-sandbox` on loopback.
# UnionPay's SDK is public code but not ours: it is not in this repository. Give its folder (the one
# holding sdk/acp_service.php, e.g. upacp_demo_wtz from UnionPay's developer site):
#     Tools/unionpay_php_sdk.sh SDK_DIR [BIN_DIR]
# Needs php-cli, php-curl and openssl (apt-get install php-cli php-curl).
set -euo pipefail
SDK_SRC=$(cd "$1" && pwd)
BIN=${2:-.build/debug}
HERE=$(cd "$(dirname "$0")/unionpay-sdk" && pwd)
WORK=$(mktemp -d /tmp/paysheet-php-sdk.XXXXXX)
MER=777290058110048
PORT=$((20000 + RANDOM % 10000)); NPORT=$((PORT + 1))
cleanup() { kill "${GW:-}" "${NS:-}" 2>/dev/null || true; }
trap cleanup EXIT
"$BIN/paysheet" acquirer-sandbox --data "$WORK/data" --listen "127.0.0.1:$PORT" >"$WORK/gateway.log" 2>&1 &
GW=$!
for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$PORT/health" >/dev/null && break; sleep 0.1; done
PKI="$WORK/data/unionpay-sandbox"
# The SDK signs with a PKCS #12 file (password 000000, as its test certificate has).
openssl pkcs12 -export -inkey "$PKI/merchant-$MER/key.pem" -in "$PKI/merchant-$MER/certificate.pem" \
    -out "$WORK/sign.pfx" -passout pass:000000
cp -r "$SDK_SRC" "$WORK/sdk-copy"
cat >"$WORK/sdk-copy/sdk/acp_sdk.ini" <<INI
[acpsdk]
acpsdk.version=5.1.0
acpsdk.signMethod=01
acpsdk.ifValidateCNName=false
acpsdk.ifValidateRemoteCert=false
acpsdk.signCert.path=$WORK/sign.pfx
acpsdk.signCert.pwd=000000
acpsdk.encryptCert.path=$PKI/encryption/certificate.pem
acpsdk.middleCert.path=$PKI/gateway-ca.pem
acpsdk.rootCert.path=$PKI/root.pem
acpsdk.log.filePath=$WORK/
acpsdk.log.level=INFO
INI
# The SDK writes its log beside whatever it is run from when its configured folder is not used
# (a run log once landed in a repository): run it from the throwaway folder.
cd "$WORK"
: >"$WORK/notify.log"
UNIONPAY_SDK="$WORK/sdk-copy" NOTIFY_LOG="$WORK/notify.log" php -S "127.0.0.1:$NPORT" "$HERE/notify.php" >"$WORK/notify-server.log" 2>&1 &
NS=$!
sleep 0.5
php "$HERE/check.php" "$WORK/sdk-copy" "http://127.0.0.1:$PORT" "http://127.0.0.1:$NPORT/notify" "$WORK/notify.log" "$MER"

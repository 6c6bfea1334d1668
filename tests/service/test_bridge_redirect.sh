#!/usr/bin/env bash
# test_bridge_redirect.sh - `ddz bridge` started at a wss:// server that
# answers with a `redirect` to a ws:// address: before, the bridge followed
# it and said hello there with its bot token, in clear; now it refuses the
# redirect with a clear error, and nothing reaches the ws:// address. The
# two servers are a few lines of Python (a TLS WebSocket that sends the
# redirect, a plain one that writes down what it is sent).
# Usage: test_bridge_redirect.sh PATH-TO-DDZ
set -u
DDZ=$1
slow=${DDZ_TEST_SLOWDOWN:-1} # waits grow with the run's slowdown (tests/test_clock.h)
tmp=$(mktemp -d)
fake=
cleanup() {
    [ -n "$fake" ] && kill "$fake" 2>/dev/null && wait "$fake" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
fail() {
    echo "FAIL: $*"
    exit 1
}

command -v python3 >/dev/null || fail "python3 is missing"
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$tmp/key.pem" -out "$tmp/cert.pem" \
    -days 2 -subj /CN=127.0.0.1 >/dev/null 2>&1 || fail "openssl req"

cat >"$tmp/fake.py" <<'PY'
import base64, hashlib, socket, ssl, sys, threading

cert, key, log = sys.argv[1:4]

def handshake(s):
    head = b""
    while b"\r\n\r\n" not in head:
        b = s.recv(1)
        if not b:
            return False
        head += b
    k = [l.split(b":", 1)[1].strip() for l in head.split(b"\r\n")
         if l.lower().startswith(b"sec-websocket-key:")][0]
    acc = base64.b64encode(hashlib.sha1(k + b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11").digest())
    s.sendall(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
              b"Connection: Upgrade\r\nSec-WebSocket-Accept: " + acc + b"\r\n\r\n")
    return True

def exact(s, n):
    b = b""
    while len(b) < n:
        c = s.recv(n - len(b))
        if not c:
            raise EOFError
        b += c
    return b

def frame(s):  # a client's frame: masked
    h = exact(s, 2)
    n = h[1] & 0x7F
    if n == 126:
        n = int.from_bytes(exact(s, 2), "big")
    elif n == 127:
        n = int.from_bytes(exact(s, 8), "big")
    m = exact(s, 4)
    return bytes(c ^ m[i % 4] for i, c in enumerate(exact(s, n)))

def send_text(s, text):
    b = text.encode()
    s.sendall(bytes([0x81, 126]) + len(b).to_bytes(2, "big") + b if len(b) > 125
              else bytes([0x81, len(b)]) + b)

plain = socket.socket()
plain.bind(("127.0.0.1", 0))
plain.listen(4)
tls = socket.socket()
tls.bind(("127.0.0.1", 0))
tls.listen(4)
print(tls.getsockname()[1], plain.getsockname()[1], flush=True)

def plain_side():  # what reaches the ws:// address, written down
    while True:
        c, _ = plain.accept()
        with open(log, "ab") as f:
            f.write(b"connection\n")
        try:
            if handshake(c):
                while True:
                    with open(log, "ab") as f:
                        f.write(frame(c) + b"\n")
        except Exception:
            pass

threading.Thread(target=plain_side, daemon=True).start()
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(cert, key)
while True:
    c, _ = tls.accept()
    try:
        c = ctx.wrap_socket(c, server_side=True)
        if handshake(c):
            frame(c)  # the hello
            send_text(c, '{"type":"redirect","url":"ws://127.0.0.1:%d/ws","about":"hello",'
                      '"reason":"another node serves you"}' % plain.getsockname()[1])
            while True:
                frame(c)
    except Exception:
        pass
PY

python3 "$tmp/fake.py" "$tmp/cert.pem" "$tmp/key.pem" "$tmp/plain.log" >"$tmp/ports" &
fake=$!
for _ in $(seq 1 $((50 * slow))); do
    [ -s "$tmp/ports" ] && break
    sleep 0.1
done
read -r tls_port plain_port <"$tmp/ports" || fail "the fake servers did not start"

timeout $((20 * slow)) "$DDZ" bridge --url "wss://127.0.0.1:$tls_port/ws" --insecure \
    --token SECRET-TOKEN-24 --retries 0 -- /bin/true 2>"$tmp/err"
rc=$?
if [ -e "$tmp/plain.log" ]; then
    grep -q SECRET-TOKEN-24 "$tmp/plain.log" &&
        fail "the token went to ws:// in clear: $(cat "$tmp/plain.log")"
    fail "the bridge connected to the ws:// address: $(cat "$tmp/plain.log")"
fi
[ "$rc" = 1 ] || fail "exit status $rc, not 1 (refused); stderr: $(cat "$tmp/err")"
grep -q "redirected us to ws://127.0.0.1:$plain_port/ws: refused: .*in clear" "$tmp/err" ||
    fail "no clear error: $(cat "$tmp/err")"
echo "PASS: a redirect from wss:// to ws:// is refused, nothing sent in clear"

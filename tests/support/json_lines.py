# The JSON-lines loop of the tests' Python helpers: an optional hello line first (what the script loaded), then one
# answer per request line, in order, a raised exception answered as {"error": "Type: message"} (callers compare
# failures too). Ignores what the answers mean.
import json
import sys


def serve(answer, hello=None):
    if hello is not None:
        sys.stdout.write(json.dumps(hello) + "\n")
        sys.stdout.flush()
    for line in sys.stdin:
        try:
            reply = answer(json.loads(line))
        except Exception as error:
            reply = {"error": f"{type(error).__name__}: {error}"}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()

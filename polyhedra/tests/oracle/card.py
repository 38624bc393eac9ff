"""barvinok's `card` as an external test oracle (run in the venv made by
scripts/ensure-oracle-venv.sh). Reads one JSON object per line on stdin:
  {"set": "<isl set>", "params": ["n", ...], "points": [[7, 5], ...]}
and writes one JSON object per line on stdout:
  {"values": ["12", "infty", ...], "seconds": <time spent in card>}
Values are exact rationals as strings; "infty" for an unbounded count."""
import json
import sys
import time

import islpy as isl


def value_at(card, params, point):
    space = card.get_domain_space()
    p = isl.Point.zero(space)
    for index, value in enumerate(point):
        p = p.set_coordinate_val(isl.dim_type.param, index, isl.Val.int_from_si(card.get_ctx(), value))
    return card.eval(p).to_str()


def main():
    for line in sys.stdin:
        request = json.loads(line)
        started = time.perf_counter()
        card = isl.Set(request["set"]).card()
        seconds = time.perf_counter() - started
        text = card.to_str()
        if "infty" in text:
            values = ["infty" for _ in request["points"]]
        else:
            values = [value_at(card, request["params"], point) for point in request["points"]]
        print(json.dumps({"values": values, "seconds": seconds, "card": text}), flush=True)


if __name__ == "__main__":
    main()

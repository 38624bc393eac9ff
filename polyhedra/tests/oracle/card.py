"""barvinok's `card` and `sum` as an external test oracle (run in the venv made by
scripts/ensure-oracle-venv.sh). Reads one JSON object per line on stdin:
  {"set": "<isl set>", "params": ["n", ...], "points": [[7, 5], ...]}
for the number of points of a set, or
  {"sum": "<isl piecewise quasi-polynomial>", "params": [...], "points": [...]}
for the sum of a piecewise quasi-polynomial over its domain (barvinok's
isl_pw_qpolynomial_sum), and writes one JSON object per line on stdout:
  {"values": ["12", "infty", ...], "seconds": <time spent in card or sum>}
Values are exact rationals as strings; "infty" for an unbounded count (a sum over an unbounded
domain, which barvinok gives as NaN, is "infty" too)."""
import json
import os
import signal
import sys
import time

import islpy as isl


def value_at(card, params, point):
    space = card.get_domain_space()
    p = isl.Point.zero(space)
    for index, value in enumerate(point):
        p = p.set_coordinate_val(isl.dim_type.param, index, isl.Val.int_from_si(card.get_ctx(), value))
    return card.eval(p).to_str()


def with_disjoint_domains(pwqp):
    """The same piecewise quasi-polynomial with each piece's domain split into disjoint basic
    sets: barvinok's sum adds a point once per basic set of a piece's domain that holds it, so
    a domain read from `A or B` with A and B overlapping counts their common points twice
    (`{ [i] -> 1 : 0 <= i <= 6 or (0 <= i <= 6 and i mod 3 = 0) }` sums to 10, not 7, though it
    prints as `{ [i] -> 1 : 0 <= i <= 6 }`)."""
    pieces = []
    pwqp.foreach_piece(lambda domain, qp: pieces.append((domain, qp)))
    total = isl.PwQPolynomial.zero(pwqp.get_space())
    for domain, qp in pieces:
        for basic in domain.make_disjoint().get_basic_sets():
            total = total.add(isl.PwQPolynomial.alloc(isl.Set.from_basic_set(basic), qp))
    return total


def answer(request):
    """The oracle's answer to one request, computed in this process."""
    started = time.perf_counter()
    if "sum" in request:
        card = with_disjoint_domains(isl.PwQPolynomial(request["sum"])).sum()
    else:
        card = isl.Set(request["set"]).card()
    seconds = time.perf_counter() - started
    text = card.to_str()
    if "infty" in text or "NaN" in text:
        values = ["infty" for _ in request["points"]]
    else:
        values = [value_at(card, request["params"], point) for point in request["points"]]
    return {"values": values, "seconds": seconds, "card": text}


# barvinok's summation takes minutes on some unions (140 s on one of the harder corpus, which
# membound sums in a few seconds); past this many seconds the answer is given up.
SUM_SECONDS = 20


def isolated_answer(request):
    """The answer computed in a child process: barvinok's summation aborts (a failed assertion
    in summate.c, or a segmentation fault) on some inputs, which must not end the batch, and
    runs for minutes on others. A crash is answered as {"crashed": "<signal>"} with no values,
    a summation past SUM_SECONDS as {"crashed": "timeout"}."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        signal.alarm(SUM_SECONDS)
        with os.fdopen(write_end, "w") as out:
            out.write(json.dumps(answer(request)))
        os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end) as received:
        data = received.read()
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        crash = signal.Signals(os.WTERMSIG(status))
        reason = "timeout" if crash == signal.SIGALRM else crash.name
        return {"values": [], "seconds": 0.0, "crashed": reason}
    return json.loads(data)


def main():
    for line in sys.stdin:
        request = json.loads(line)
        # Only summation needs the isolation; `card` runs in this process, as it always did.
        result = isolated_answer(request) if "sum" in request else answer(request)
        print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()

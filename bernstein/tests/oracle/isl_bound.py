"""Upper bounds from isl (islpy-barvinok, GPL), used only as an external test oracle.

Reads JSON from stdin: a list of {"problem": isl text, "points": [{param: int, ...}, ...]}.
Writes JSON to stdout: a list of {"bound": isl text of the fold, "values": [str, ...]}, one
value per point ("p/q" or an integer; "infty" when isl says so).
"""
import json
import sys

import islpy as isl


def value_at(fold, point):
    space = fold.get_domain_space()
    pt = isl.Point.zero(space)
    for index in range(space.dim(isl.dim_type.param)):
        name = space.get_dim_name(isl.dim_type.param, index)
        pt = pt.set_coordinate_val(isl.dim_type.param, index, isl.Val.int_from_si(space.get_ctx(), point[name]))
    return str(fold.eval(pt))


def main():
    requests = json.load(sys.stdin)
    answers = []
    for request in requests:
        fold, _tight = isl.PwQPolynomial(request["problem"]).bound(isl.fold.max)
        answers.append({"bound": str(fold), "values": [value_at(fold, p) for p in request["points"]]})
    json.dump(answers, sys.stdout)


main()

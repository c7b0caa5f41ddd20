"""Checks that a Tandem fragment document is well formed (docs/spark_fragment.md, format 1):
the header, the inputs, and every node and expression, including that column references point
into the node's input with the input's type, that a node's declared output agrees with what its
op makes of its children (project: its expressions' types; join: left ++ right ...), and that
node ids are unique. Used by spark/dev/tpch_plans.py on the plugin's dumps.

    problems(doc, execution)  -> list of strings (empty: well formed)
"""

TYPE_IDS = {"bool", "int8", "int16", "int32", "int64", "float32", "float64", "string", "binary",
            "date", "timestamp", "timestamp_ntz", "decimal"}
JOIN_TYPES = {"inner", "left", "right", "full", "semi", "anti", "cross"}
AGG_FNS = {"sum", "avg", "count", "count_star", "min", "max"}
MODES = {"ansi", "legacy", "try"}
MODE_FNS = {"add", "subtract", "multiply", "divide", "modulo", "negate", "abs"}


def problems(doc, execution):
    """What is wrong with `doc`; `execution`: one `root` (else a validation document, `roots`)."""
    return _Checker(doc, execution).run()


class _Checker:
    def __init__(self, doc, execution):
        self.doc = doc
        self.execution = execution
        self.out = []
        self.ids = set()

    def run(self):
        d = self.doc
        self.expect(d.get("format") == "tandem-fragment", "document", "format is not"
                    " tandem-fragment")
        self.expect(d.get("version") == 1, "document", "version is not 1")
        spark = d.get("spark", {})
        for key in ("version", "ansi", "timeZone"):
            self.expect(key in spark, "document.spark", f"no {key}")
        self.expect(d.get("device") in ("auto", "gpu", "cpu"), "document", "bad device")
        inputs = d.get("inputs")
        self.expect(isinstance(inputs, list), "document", "inputs is not a list")
        for i, inp in enumerate(inputs or []):
            self.expect(inp.get("kind") in ("rows", "broadcast"), f"inputs[{i}]", "bad kind")
            self.fields(inp.get("schema"), f"inputs[{i}].schema")
        if self.execution:
            self.expect("root" in d and "roots" not in d, "document", "needs one root")
            roots = [d.get("root")]
        else:
            self.expect(isinstance(d.get("roots"), list) and d["roots"], "document", "needs roots")
            roots = d.get("roots") or []
        for i, r in enumerate(roots):
            self.node(r, f"roots[{i}]")
        return self.out

    def expect(self, ok, where, what):
        if not ok:
            self.out.append(f"{where}: {what}")
        return ok

    # -- types and fields ------------------------------------------------------------------
    def type(self, t, where):
        if not self.expect(isinstance(t, dict) and t.get("id") in TYPE_IDS, where, f"bad type {t}"):
            return
        if t["id"] == "decimal":
            p, s = t.get("precision"), t.get("scale")
            self.expect(isinstance(p, int) and isinstance(s, int) and 1 <= p <= 38 and 0 <= s <= p,
                        where, f"bad decimal {t}")

    def fields(self, fields, where):
        if not self.expect(isinstance(fields, list), where, "not a list of fields"):
            return []
        for i, f in enumerate(fields):
            self.expect(isinstance(f.get("name"), str), f"{where}[{i}]", "no name")
            self.expect(isinstance(f.get("nullable"), bool), f"{where}[{i}]", "no nullable")
            self.type(f.get("type"), f"{where}[{i}].type")
        return [f.get("type") for f in fields]

    def same_types(self, got, want, where, what):
        self.expect(got == want, where, f"{what}: {_show(got)} vs {_show(want)}")

    # -- nodes -------------------------------------------------------------------------------
    def node(self, n, where):
        """Checks node n; returns its output types."""
        if not self.expect(isinstance(n, dict), where, "not a node"):
            return []
        op, nid = n.get("op"), n.get("id")
        where = f"{where}({op}#{nid})"
        self.expect(isinstance(nid, int) and nid not in self.ids, where, "id missing or repeated")
        self.ids.add(nid)
        out = self.fields(n.get("output"), where + ".output")
        check = getattr(self, "op_" + str(op), None)
        if self.expect(check is not None, where, f"unknown op {op}"):
            check(n, where, out)
        return out

    def child(self, n, key, where):
        return self.node(n.get(key), f"{where}.{key}")

    def op_scan_parquet(self, n, where, out):
        cols = self.fields(n.get("columns"), where + ".columns")
        parts = self.fields(n.get("partition_columns"), where + ".partition_columns")
        self.same_types(out, cols + parts, where, "output is not columns ++ partition_columns")
        for i, f in enumerate(n.get("filters", [])):
            self.expect(self.expr(f, out, f"{where}.filters[{i}]") == {"id": "bool"}, where,
                        "a filter is not boolean")

    def op_input(self, n, where, out):
        i = n.get("index")
        inputs = self.doc.get("inputs", [])
        if self.expect(isinstance(i, int) and 0 <= i < len(inputs), where, f"bad index {i}"):
            self.same_types(out, [f["type"] for f in inputs[i]["schema"]], where,
                            "output is not the input's schema")

    def op_filter(self, n, where, out):
        child = self.child(n, "child", where)
        self.same_types(out, child, where, "output is not the child's")
        self.expect(self.expr(n.get("condition"), child, where + ".condition") == {"id": "bool"},
                    where, "condition is not boolean")

    def op_project(self, n, where, out):
        child = self.child(n, "child", where)
        exprs = n.get("exprs", [])
        got = [self.expr(e, child, f"{where}.exprs[{i}]") for i, e in enumerate(exprs)]
        self.same_types(got, out, where, "expression types are not the output")

    def op_aggregate(self, n, where, out):
        child = self.child(n, "child", where)
        mode = n.get("mode")
        self.expect(mode in ("partial", "final", "complete"), where, f"bad mode {mode}")
        keys = [self.expr(k, child, f"{where}.keys[{i}]") for i, k in enumerate(n.get("keys", []))]
        made = list(keys)
        for i, a in enumerate(n.get("aggregates", [])):
            at = f"{where}.aggregates[{i}]"
            fn = a.get("fn")
            self.expect(fn in AGG_FNS, at, f"bad fn {fn}")
            args = a.get("args", [])
            if mode == "final" or fn == "count_star":
                self.expect(args == [], at, "args where none are read")
            else:
                self.expect(len(args) == 1, at, "needs one argument")
                for j, e in enumerate(args):
                    self.expr(e, child, f"{at}.args[{j}]")
            if fn in ("sum", "avg"):
                self.expect(a.get("mode") in MODES, at, "sum/avg without an eval mode")
            agg_out = self.fields(a.get("output"), at + ".output")
            if mode != "partial":
                self.expect(len(agg_out) == 1, at, "a final or complete aggregate has one result")
            made += agg_out
        self.same_types(out, made, where, "output is not keys ++ aggregate outputs")
        if mode == "final":
            self.expect(len(child) >= len(made), where, "a final aggregate's input has fewer"
                        " columns than keys and buffers")

    def op_join(self, n, where, out):
        left = self.child(n, "left", where)
        right = self.child(n, "right", where)
        t = n.get("type")
        self.expect(t in JOIN_TYPES, where, f"bad join type {t}")
        lk = [self.expr(e, left, f"{where}.left_keys[{i}]")
              for i, e in enumerate(n.get("left_keys", []))]
        rk = [self.expr(e, right, f"{where}.right_keys[{i}]")
              for i, e in enumerate(n.get("right_keys", []))]
        self.same_types(lk, rk, where, "left and right key types differ")
        if n.get("condition") is not None:
            condition = self.expr(n["condition"], left + right, where + ".condition")
            self.expect(condition == {"id": "bool"}, where, "condition is not boolean")
        self.same_types(out, left if t in ("semi", "anti") else left + right, where,
                        "output is not the join's columns")

    def sort_keys(self, n, child, where):
        for i, k in enumerate(n.get("keys", [])):
            self.expr(k.get("expr"), child, f"{where}.keys[{i}].expr")
            flags = (k.get("ascending"), k.get("nulls_first"))
            self.expect(all(isinstance(f, bool) for f in flags), f"{where}.keys[{i}]",
                        "ascending/nulls_first")

    def op_sort(self, n, where, out):
        child = self.child(n, "child", where)
        self.same_types(out, child, where, "output is not the child's")
        self.sort_keys(n, child, where)

    def op_limit(self, n, where, out):
        child = self.child(n, "child", where)
        self.same_types(out, child, where, "output is not the child's")
        self.expect(isinstance(n.get("limit"), int) and isinstance(n.get("offset"), int), where,
                    "limit/offset")

    def op_top_n(self, n, where, out):
        self.op_limit(n, where, out)
        self.sort_keys(n, self.node_types(n.get("child")), where)

    def node_types(self, n):
        return [f.get("type") for f in (n or {}).get("output", [])]

    def op_union(self, n, where, out):
        kids = n.get("children", [])
        self.expect(len(kids) >= 2, where, "a union needs two children")
        for i, c in enumerate(kids):
            self.same_types(self.node(c, f"{where}.children[{i}]"), out, where,
                            "a child's types are not the union's")

    # -- expressions ---------------------------------------------------------------------------
    def expr(self, e, input_types, where):
        """Checks expression e over an input of `input_types`; returns its type."""
        if not self.expect(isinstance(e, dict), where, "not an expression"):
            return None
        kind, t = e.get("kind"), e.get("type")
        self.type(t, where + ".type")
        if kind == "col":
            i = e.get("index")
            if self.expect(isinstance(i, int) and 0 <= i < len(input_types), where,
                           f"column {i} of an input of {len(input_types)}"):
                self.same_types(t, input_types[i], where, "column type is not the input's")
        elif kind == "lit":
            self.expect("value" in e, where, "literal without value")
        elif kind == "call":
            fn = e.get("fn")
            self.expect(isinstance(fn, str), where, "call without fn")
            for i, a in enumerate(e.get("args", [])):
                self.expr(a, input_types, f"{where}.args[{i}]")
            if fn in MODE_FNS:
                self.expect(e.get("mode") in MODES, where, f"{fn} without an eval mode")
        elif kind == "cast":
            self.expr(e.get("arg"), input_types, where + ".arg")
            self.expect(e.get("mode") in MODES, where, "cast without an eval mode")
        elif kind in ("case", "in"):
            args = e.get("args", [])
            for i, a in enumerate(args):
                self.expr(a, input_types, f"{where}.args[{i}]")
            if kind == "case":
                self.expect(isinstance(e.get("has_else"), bool), where, "case without has_else")
                self.expect(len(args) >= 2, where, "case without branches")
            else:
                self.expect(len(args) >= 2 and t == {"id": "bool"}, where, "in needs a list, bool")
        else:
            self.expect(False, where, f"unknown expression kind {kind}")
        return t


def _show(types):
    def one(t):
        if not isinstance(t, dict):
            return str(t)
        if t.get("id") == "decimal":
            return f"decimal({t['precision']},{t['scale']})"
        return t.get("id")
    return [one(t) for t in types] if isinstance(types, list) else one(types)

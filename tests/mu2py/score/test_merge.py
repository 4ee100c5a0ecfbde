"""Import-time mutants of class attributes that only inherited code from outside the package reads.

`allow_reuse_address` of a `socketserver.TCPServer` subclass is read by socketserver, a json
encoder's separators by json's Python code, a csv dialect's `delimiter` by csv's C code: no
code of the project names them, so the tests that see such a change cannot be told by the
names their code reads (tests/data/score_stdlib).  They ran no test and survived.
"""



def test_attributes_read_by_inherited_code_are_judged_by_the_tests(scored_sample):
    _, report = scored_sample("score_stdlib", "std_pkg")
    found = {m["id"]: m for m in report["mutants"]}

    def verdict(mutant_id):
        m = found[mutant_id]
        return m["mode"], m["status"], (m["killed_by"] or "").split("::")[-1]

    # read by json's encoder (Python code of the standard library)
    assert verdict("std_pkg.formats:9:21:string") == ("reexec", "killed", "test_json")  # item_separator
    assert verdict("std_pkg.formats:10:4:assign_value") == ("reexec", "killed", "test_json")  # key_separator
    # read by the csv module's C code
    assert verdict("std_pkg.formats:14:16:string") == ("reexec", "killed", "test_csv")  # delimiter
    # `allow_reuse_address = False` makes no difference on port 0: a survivor, but judged by running tests
    reuse = found["std_pkg.server:12:26:name"]
    assert (reuse["mode"], reuse["status"]) == ("reexec", "survived") and reuse["tests_run"] >= 1
    # a class of the project's own whose attribute nothing reads: still decided without running a test
    unused = found["std_pkg.formats:19:13:string"]
    assert (unused["mode"], unused["status"], unused["tests_run"]) == ("reexec", "survived", 0)

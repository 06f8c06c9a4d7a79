#!/usr/bin/env python3
"""Self-test of the ABI tools (stdlib only; run with pytest or `python3 -m unittest`).

  python3 -m pytest -q qa/ceph/abi/test_abi_tools.py
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import unittest
from typing import Dict, List, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
# The tools live in the ceph-volume plugin package (one copy: check-ceph uses them too).
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "src", "ceph-volume"))

from ceph_volume_smrstore.abi import (compare_layouts, compare_vtables,  # noqa: E402
                                      pacific_layouts, vtable_slots)
from ceph_volume_smrstore.abi.abi_names import (method_name_only,  # noqa: E402
                                                normalize_declaration, normalize_signature,
                                                split_function_name, unqualified_method)
from ceph_volume_smrstore.abi.vtable_slots import Slot  # noqa: E402

STR = "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >"


class NormalizerTest(unittest.TestCase):
    def test_cxx11_string_and_abi_tag(self) -> None:
        self.assertEqual(normalize_signature(f"write_meta({STR} const&, {STR} const&)"),
                         "write_meta(std::string const&, std::string const&)")
        self.assertEqual(normalize_signature("get_type[abi:cxx11]()"), "get_type()")
        self.assertEqual(normalize_signature("write_meta(std::string const&, "
                                             "std::string const&)"),
                         normalize_signature(f"write_meta({STR} const&, {STR} const&)"))

    def test_default_template_arguments(self) -> None:
        self.assertEqual(
            normalize_signature("f(std::vector<ceph::os::Transaction, "
                                "std::allocator<ceph::os::Transaction> >&)"),
            "f(std::vector<ceph::os::Transaction>&)")
        m = (f"std::map<{STR}, ceph::buffer::v15_2_0::list, std::less<{STR} >, "
             f"std::allocator<std::pair<{STR} const, ceph::buffer::v15_2_0::list> > >*")
        self.assertEqual(normalize_signature(m),
                         "std::map<std::string, ceph::buffer::v15_2_0::list>*")
        # Not a default: kept.
        self.assertEqual(normalize_signature("std::vector<int, mempool::pool_allocator<int> >"),
                         "std::vector<int, mempool::pool_allocator<int>>")

    def test_streams_and_integer_typedefs(self) -> None:
        self.assertEqual(
            normalize_signature("flush_cache(std::basic_ostream<char, "
                                "std::char_traits<char> >*)"),
            "flush_cache(std::ostream*)")
        self.assertEqual(normalize_signature("f(uint64_t, size_t, std::uint32_t)"),
                         normalize_signature("f(unsigned long, unsigned long, unsigned int)"))

    def test_gdb_and_demangler_spellings_agree(self) -> None:
        gdb = "validate_hobject_key(const hobject_t &) const"
        dem = "validate_hobject_key(hobject_t const&) const"
        self.assertEqual(normalize_signature(gdb), normalize_signature(dem))
        self.assertEqual(normalize_signature("mount(void)"), "mount()")
        self.assertEqual(normalize_signature("f(char * const, const char *)"),
                         "f(char* const, char const*)")

    def test_idempotent(self) -> None:
        for s in ["f(std::vector<int> const&, char const*(*)(int))",
                  "queue_transactions(boost::intrusive_ptr<ObjectStore::CollectionImpl>&, "
                  "std::vector<ceph::os::Transaction>&, boost::intrusive_ptr<TrackedOp>, "
                  "ThreadPool::TPHandle*)"]:
            self.assertEqual(normalize_signature(normalize_signature(s)),
                             normalize_signature(s))

    def test_unqualified_method(self) -> None:
        self.assertEqual(unqualified_method("MemStore::mount()"), "mount()")
        self.assertEqual(unqualified_method("ObjectStore::get_perf_counters() const"),
                         "get_perf_counters() const")
        self.assertEqual(
            unqualified_method("C_ContextsBase<Context, Context, std::__cxx11::list<Context*, "
                               "std::allocator<Context*> > >::finish(int)"), "finish(int)")
        self.assertEqual(
            unqualified_method("(anonymous namespace)::SMROmapIterator::upper_bound("
                               f"{STR} const&)"), "upper_bound(std::string const&)")
        self.assertEqual(unqualified_method("A::operator()(int) const"), "operator()(int) const")
        self.assertEqual(unqualified_method("non-virtual thunk to B::f(int)"), "f(int)")
        self.assertEqual(split_function_name("ns::C<a::b>::g(int (*)(char)) const")[:2],
                         ("ns::C<a::b>", "g"))

    def test_declarations(self) -> None:
        self.assertEqual(
            normalize_declaration("virtual const ceph::common::PerfCounters * "
                                  "get_perf_counters(void) const;"),
            "ceph::common::PerfCounters const* get_perf_counters() const")
        self.assertEqual(normalize_declaration("~ObjectStore(void);"), "~ObjectStore()")
        self.assertEqual(method_name_only("virtual std::string get_type(void);"), "get_type")
        self.assertEqual(method_name_only("get_type[abi:cxx11]()"), "get_type")


def slots(names: List[str]) -> List[Slot]:
    return [Slot(i, 0x1000 + 8 * i, None, n, n) for i, n in enumerate(names)]


class CompareVtablesTest(unittest.TestCase):
    REF = ["get_cur_stats()", "queue_transactions()", "~D1", "~D0", "upgrade()",
           "dump_perf_counters(ceph::Formatter*)", "flush_cache(std::ostream*)"]

    def test_equal(self) -> None:
        res = compare_vtables.compare_slots("ObjectStore", slots(self.REF), slots(self.REF), 7)
        self.assertFalse(res.failed)
        self.assertEqual(res.lines[-1], "ObjectStore vtable: 7 slots compared, 0 differ")

    def test_one_slot_shifted_fails_and_names_the_slot(self) -> None:
        ours = list(self.REF)
        ours[5], ours[6] = ours[6], ours[5]     # flush_cache declared before dump_perf_counters
        res = compare_vtables.compare_slots("ObjectStore", slots(self.REF), slots(ours), 7)
        self.assertTrue(res.failed)
        self.assertIn("slot 5: pacific dump_perf_counters(ceph::Formatter*) / ours "
                      "flush_cache(std::ostream*)", res.lines)
        self.assertEqual(res.lines[-1], "ObjectStore vtable: 7 slots compared, 2 differ")

    def test_missing_slots_and_extra_slots(self) -> None:
        res = compare_vtables.compare_slots("X", slots(self.REF), slots(self.REF[:5]), 7)
        self.assertTrue(res.failed)
        self.assertIn("slot 6: pacific flush_cache(std::ostream*) / ours <no slot>", res.lines)
        res = compare_vtables.compare_slots("X", slots(self.REF), slots(self.REF + ["x()"]), 7)
        self.assertFalse(res.failed)

    def test_folded_functions_match_any_of_their_names(self) -> None:
        ref = slots(["needs_journal()", "wants_journal()"])
        folded = ("needs_journal()", "wants_journal()")
        ours = [Slot(i, 0x2000, None, "x", folded[0], folded) for i in range(2)]
        self.assertFalse(compare_vtables.compare_slots("X", ref, ours, 2).failed)

    def test_parsers(self) -> None:
        relocs = vtable_slots.parse_relocs(textwrap.dedent("""\
            00000000001ed528  0000000000000008 R_X86_64_RELATIVE                         3d580
            00000000001ef770  0000013600000001 R_X86_64_64            0000000000000000 __cxa_pure_virtual@CXXABI_1.3 + 0
            00000000001ef778  0000013600000001 R_X86_64_64            0000000000000000 _ZN1A1fEv + 10
            """))
        self.assertEqual(relocs[0x1ed528].addend, 0x3d580)
        self.assertEqual(relocs[0x1ef770].symbol, "__cxa_pure_virtual")
        self.assertEqual((relocs[0x1ef778].symbol, relocs[0x1ef778].addend), ("_ZN1A1fEv", 16))
        table = vtable_slots.parse_nm("0000000001883380 0000000000000270 V _ZTV8MemStore\n"
                                      "0000000000c31cd0 T _ZN1A1fEv\n")
        self.assertEqual(table.by_name["_ZTV8MemStore"][0].size, 0x270)
        self.assertEqual(table.by_addr[0xc31cd0][0].name, "_ZN1A1fEv")
        self.assertEqual(vtable_slots.display_name("_ZN1AD0Ev", "A::~A()"), "~D0")
        self.assertEqual(vtable_slots.display_name("_ZN1AD2Ev", "A::~A()"), "~D1")


@unittest.skipUnless(shutil.which("g++") and shutil.which("readelf"), "needs g++ + binutils")
class VtableFromElfTest(unittest.TestCase):
    """Two real shared libraries with hidden (LOCAL) vtables: one slot shifted."""

    SRC = """
        struct __attribute__((visibility("hidden"))) Base {
          virtual int f(int);
          %s
          virtual ~Base();
          virtual void pure() = 0;
        };
        struct __attribute__((visibility("hidden"))) Impl : Base {
          int f(int) override; int g(const char*) override; int h(long) override;
          void pure() override;
        };
        int Base::f(int) { return 1; } Base::~Base() {}
        int Impl::f(int) { return 2; } int Impl::g(const char*) { return 3; }
        int Impl::h(long) { return 4; } void Impl::pure() {}
        Base* make() { return new Impl; }
    """

    def build(self, tmp: str, name: str, decls: str) -> str:
        src, lib = os.path.join(tmp, name + ".cc"), os.path.join(tmp, f"lib{name}.so")
        with open(src, "w") as f:
            f.write(self.SRC % decls)
        subprocess.run(["g++", "-shared", "-fPIC", "-O1", "-o", lib, src], check=True)
        return lib

    def test_shifted_slot(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            ref = self.build(tmp, "ref", "virtual int g(const char*) = 0; "
                                         "virtual int h(long) = 0;")
            ours = self.build(tmp, "ours", "virtual int h(long) = 0; "
                                           "virtual int g(const char*) = 0;")
            ref_img, our_img = vtable_slots.ElfImage(ref), vtable_slots.ElfImage(ours)
            vt = vtable_slots.read_vtable(ref_img, "_ZTV4Impl")
            self.assertEqual([s.display for s in vt.slots],
                             ["f(int)", "g(char const*)", "h(long)", "~D1", "~D0", "pure()"])
            base = vtable_slots.read_vtable(ref_img, "_ZTV4Base")
            self.assertEqual(base.slots[1].display, "__cxa_pure_virtual")
            pair = compare_vtables.Pair("Impl", "_ZTV4Impl", "_ZTV4Impl", "all")
            res = compare_vtables.compare_pair(pair, ref_img, our_img, None)
            self.assertTrue(res.failed)
            self.assertIn("slot 1: pacific g(char const*) / ours h(long)", res.lines)
            self.assertEqual(res.lines[-1], "Impl vtable: 6 slots compared, 2 differ")
            same = compare_vtables.compare_pair(pair, ref_img, ref_img, None)
            self.assertFalse(same.failed)


PTYPE_O = """\
/* offset      |    size */  type = class ContextQueue {
                             private:
/*      0      |      24 */    class std::__cxx11::list<Context*, std::allocator<Context*> > [with _Tp = Context *] : protected std::__cxx11::_List_base<Context*, _Alloc> {

                                   /* total size (bytes):   24 */
                               } q;
/*     24      |      40 */    class std::mutex : private std::__mutex_base {
/* XXX 16-byte padding   */

                                   /* total size (bytes):   40 */
                               } q_mutex;
/*     64      |       8 */    ceph::mutex &mutex;
/*     72      |       8 */    ceph::condition_variable &cond;
/*     80      |       1 */    std::atomic_bool q_empty;
/*     81: 0   |       1 */    unsigned char bits : 3;
/*     88      |      40 */    char name[40];
/*    128      |       8 */    struct {
/*    128      |       4 */        __u32 tv_sec;
/*    132      |       4 */        __u32 tv_nsec;

                                   /* total size (bytes):    8 */
                               } tv;

                               /* total size (bytes):  136 */
                             }
"""

PTYPE = """\
type = class Context {
  private:
    Context(const Context &);
  protected:
    virtual void finish(int);
    virtual bool sync_finish(int);
  public:
    ~Context(void);
    virtual void complete(int);
    virtual bool sync_complete(int);

    typedef int T;
}
"""


class LayoutTest(unittest.TestCase):
    PAC = textwrap.dedent("""\
        # types: x
        @type ceph::os::Transaction = ceph::os::Transaction
        ceph::os::Transaction sizeof 264
        ceph::os::Transaction.data 0 24
        ceph::os::Transaction.data.ops 0 8
        ceph::os::Transaction.data_bl 128 32
        ceph::os::Transaction.op_bl 160 32
        @type Context = Context
        Context sizeof 8
        Context virtual 0 void finish(int)
        Context virtual 1 ~Context()
        @type TrackedOp = TrackedOp
        TrackedOp sizeof 192
        """)

    def compare(self, ours: str, allow: str = "") -> Tuple[List[str], int]:
        allowed: Dict[str, str] = {}
        for line in allow.splitlines():
            ident, _, reason = line.partition("  ")
            allowed[ident] = reason
        return compare_layouts.compare_layouts(compare_layouts.parse_layout(self.PAC),
                                               compare_layouts.parse_layout(ours), allowed)

    def test_equal(self) -> None:
        lines, n = self.compare(self.PAC)
        self.assertEqual(n, 0)
        self.assertIn("ceph::os::Transaction: sizeof 264 = 264, 4 members, 0 differ", lines)

    def test_offset_shifted_by_8_fails(self) -> None:
        ours = self.PAC.replace("Transaction.op_bl 160 32", "Transaction.op_bl 168 32")
        lines, n = self.compare(ours)
        self.assertEqual(n, 1)
        self.assertIn("  ceph::os::Transaction.op_bl: pacific offset 160 size 32 / "
                      "ours offset 168 size 32", lines)
        self.assertIn("ceph::os::Transaction: sizeof 264 = 264, 4 members, 1 differ", lines)
        _, n = self.compare(ours, "ceph::os::Transaction.op_bl  documented")
        self.assertEqual(n, 0)

    def test_missing_extra_and_absent(self) -> None:
        ours = self.PAC.replace("ceph::os::Transaction.data_bl 128 32\n",
                                "ceph::os::Transaction.extra 128 32\n")
        ours = ours.replace("@type TrackedOp = TrackedOp\nTrackedOp sizeof 192\n",
                            "@missing TrackedOp tried: TrackedOp\n")
        lines, n = self.compare(ours)
        self.assertEqual(n, 3)
        self.assertTrue(any("data_bl: missing in ours" in l for l in lines))
        self.assertTrue(any("extra: only in ours" in l for l in lines))
        _, n = self.compare(ours, "TrackedOp absent  opaque")
        self.assertEqual(n, 2)

    def test_unexpanded_nested_member_is_not_a_difference(self) -> None:
        ours = self.PAC.replace("ceph::os::Transaction.data.ops 0 8\n", "")
        _, n = self.compare(ours)
        self.assertEqual(n, 0)

    def test_virtual_declaration_order(self) -> None:
        ours = self.PAC.replace("Context virtual 0 void finish(int)\nContext virtual 1 ~Context()",
                                "Context virtual 0 ~Context()\nContext virtual 1 void finish(int)")
        lines, n = self.compare(ours)
        self.assertEqual(n, 1)
        self.assertIn("Context virtual declarations: 2 = 2, 2 differ", lines)

    def test_parse_ptype_o(self) -> None:
        lay = pacific_layouts.parse_ptype_o(PTYPE_O)
        assert lay is not None
        self.assertEqual(lay.sizeof, 136)
        flat = pacific_layouts.flatten("CQ", lay.members, None)
        self.assertEqual(flat, ["CQ.q 0 24", "CQ.q_mutex 24 40", "CQ.mutex 64 8", "CQ.cond 72 8",
                                "CQ.q_empty 80 1", "CQ.bits 81:0 1", "CQ.name 88 40",
                                "CQ.tv 128 8", "CQ.tv.tv_sec 128 4", "CQ.tv.tv_nsec 132 4"])
        self.assertEqual(pacific_layouts.flatten("CQ", lay.members, ("cond",)), ["CQ.cond 72 8"])
        self.assertIsNone(pacific_layouts.parse_ptype_o('No symbol "X" in current context.'))

    def test_parse_virtual_decls(self) -> None:
        self.assertEqual(pacific_layouts.parse_virtual_decls(PTYPE),
                         ["void finish(int)", "bool sync_finish(int)", "~Context()",
                          "void complete(int)", "bool sync_complete(int)"])

    def test_decl_slot_count(self) -> None:
        with tempfile.NamedTemporaryFile("w", suffix=".layout", delete=False) as f:
            f.write(self.PAC)
        try:
            self.assertEqual(compare_vtables.decl_slot_count(f.name, "Context"), 3)
        finally:
            os.unlink(f.name)


class PlumbingTest(unittest.TestCase):
    def test_probe_args_keep_flags_and_replace_output(self) -> None:
        sys.path.insert(0, HERE)
        import layout_probe
        entry: Dict[str, object] = {
            "directory": "/b", "file": "/s/x.cc",
            "command": "/usr/bin/c++ -DA=1 -I/inc -O2 -g -MD -MT x.o -MF x.o.d "
                       "-o x.o -c /s/x.cc"}
        args = layout_probe.probe_args(entry, "/t/probe.cc", "/t/probe.o")
        self.assertEqual(args[:4], ["/usr/bin/c++", "-DA=1", "-I/inc", "-O2"])
        self.assertNotIn("/s/x.cc", args)
        self.assertNotIn("x.o", args)
        self.assertIn("-femit-class-debug-always", args)
        self.assertEqual(args[-4:], ["-c", "/t/probe.cc", "-o", "/t/probe.o"])

    def test_pairs_and_overrides(self) -> None:
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
            f.write("# c\nObjectStore _ZTV8MemStore _ZTV8SMRStore all  # ours\n")
        try:
            pairs = compare_vtables.read_pairs(f.name)
        finally:
            os.unlink(f.name)
        self.assertEqual(pairs, [compare_vtables.Pair("ObjectStore", "_ZTV8MemStore",
                                                      "_ZTV8SMRStore", "all")])
        moved = compare_vtables.apply_overrides(pairs, ["ObjectStore=_ZTV5Other"])
        self.assertEqual(moved[0].our_symbol, "_ZTV5Other")
        with self.assertRaises(vtable_slots.ToolError):
            compare_vtables.apply_overrides(pairs, ["Nope=_ZTV1X"])


if __name__ == "__main__":
    unittest.main()

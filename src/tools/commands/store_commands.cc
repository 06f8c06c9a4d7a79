// Registers smrstore-tool's store commands: the store-level ones (store_admin_commands.cc)
// and the collection/object ones (object_commands.cc), with their help texts.
#include "store_commands.h"

#include <string>

#include "object_commands.h"
#include "store_admin_commands.h"
#include "store_command_util.h"

namespace smr::tool {

using storecmd::ObjectOptions;
using storecmd::With;

void AddStoreCommands(Cli* cli) {
  const std::string obj_note =
      "OBJ is the object name; --pool, --nspace, --locator, --hash and --snap give the\n"
      "rest of its identity (Ceph's ghobject_t). The default --hash is the crc32c of the\n"
      "locator key, or of the name when there is none (Ceph itself uses rjenkins; pass\n"
      "--hash to match a RADOS object's placement). Ceph's limits apply: names and locator\n"
      "keys <= 2048 bytes, namespaces <= 256, xattr names <= 100 (longer ones: exit 2).\n"
      "Names are printed with control bytes escaped as \\xNN (a backslash as \\\\).";
  cli->Add({"mkfs", "STORE SPEC [SPEC...]", "create a store in directory STORE on zoned drives",
            "Creates the store's metadata in STORE (which must not hold a store) and formats\n"
            "the drives; emu: drives that do not exist are created. Drives holding another\n"
            "store are refused unless --force. Prints the new store's uuid and capacity.",
            2,
            65,
            {{"force", "", "format drives that belong to another store"},
             {"opt", "KEY=VALUE[,...]", kStoreOptHelp},
             {"inline-max", "BYTES", StoreOptionHelp("inline_max")},
             {"max-record", "BYTES", StoreOptionHelp("max_record_payload")},
             {"journal-with-data", "auto|on|off", StoreOptionHelp("journal_with_data")},
             {"gc-read-ahead", "auto|on|off", StoreOptionHelp("gc_read_ahead")},
             {"gc-free-zones-max", "N", StoreOptionHelp("gc_free_zones_max")},
             {"pack-max", "BYTES", StoreOptionHelp("pack_max")},
             {"journal-pinned-zones-max", "N", StoreOptionHelp("journal_pinned_zones_max")},
             {"gc-policy", "greedy|cost-benefit|lifetime", StoreOptionHelp("gc_policy")},
             {"gc-free", "START:URGENT:STOP",
              "GC free-space watermarks, fractions of the data zones (store options "
              "gc_start_free, gc_urgent_free, gc_stop_free; default 0.03:0.01:0.05)"}},
            CmdMkfs});
  cli->Add({"options", "", "the store options: default, scope, range, help",
            "Lists every store option (src/os/smrstore/store/options.def): its default, whether\n"
            "it is fixed at mkfs or taken at mount, its range and what it does. mkfs and bench\n"
            "take any of them as --opt KEY=VALUE, an OSD's smrstore.conf as KEY = VALUE.\n"
            "--markdown prints the table doc/options.md holds.",
            0,
            0,
            {{"markdown", "", "print a markdown table"}},
            CmdOptions});
  cli->Add({"df", "STORE", "space used and available",
            "Total data capacity; available: the largest object put can store now (its\n"
            "records with their 4 KiB headers fit in the space users can surely still write,\n"
            "Statfs user_available: free zones beyond the GC reserve and open zones' room,\n"
            "less a record per zone); a put one byte larger fails NoSpace before writing.\n"
            "free (free zones + room in open zones), used (total - free), allocated (written\n"
            "into data zones), stored (live object bytes) and RocksDB size, with percentages\n"
            "of total.",
            1,
            1,
            {{"json", "", "print JSON"}},
            CmdDf});
  cli->Add({"stats", "STORE", "store statistics (statfs, counters, zone states)",
            "Mounts the store and prints Store::StatsJson(): as 'key value' lines, or the\n"
            "JSON itself with --json. Counters count since this mount. --document prints\n"
            "the smrstore.stats/1 document of doc/stats-schema.md instead (one line of\n"
            "JSON, with each drive's zonemap and streams unless --compact).",
            1,
            1,
            {{"json", "", "print JSON"},
             {"document", "", "print the smrstore.stats/1 document"},
             {"name", "NAME", "the document's name (default: the store directory's name)"},
             {"compact", "", "with --document: leave out the zone maps"}},
            CmdStats});
  cli->Add({"fsck", "STORE", "check the store's metadata against its zones",
            "Checks metadata, zone accounting and record placement; --deep also reads and\n"
            "verifies every referenced record; --repair fixes what can be fixed without\n"
            "losing data. Prints the counts and every error. Exit 0 when clean, 1 when\n"
            "errors remain.",
            1,
            1,
            {{"deep", "", "read and verify every record"},
             {"repair", "", "fix repairable errors"},
             {"json", "", "print JSON"}},
            CmdFsck});
  cli->Add({"gc", "STORE", "run zone GC now",
            "Cleans up to --zones victim zones chosen by the store's GC policy: live data is\n"
            "relocated and committed first, then each victim is reset. Safe to interrupt.",
            1,
            1,
            {{"zones", "N", "victims to clean at most (default 1)"}, {"json", "", "print JSON"}},
            CmdGc});
  cli->Add({"mkcoll", "STORE COLL", "create a collection",
            "COLL is a collection name as Ceph's coll_t prints it (e.g. 1.0_head, meta).", 2,
            2, {{"bits", "N", "hash bits of the collection (default 0)"}}, CmdMkcoll});
  cli->Add({"rmcoll", "STORE COLL", "remove an empty collection",
            "COLL is a collection name as Ceph's coll_t prints it (e.g. 1.0_head). A\n"
            "collection that does not exist is refused (NotFound), as is one that still\n"
            "holds objects: remove them first (ls, rm).",
            2, 2, {}, CmdRmcoll});
  cli->Add({"lscoll", "STORE", "list collections",
            "Mounts the store read-only and prints every collection name, one per line, as\n"
            "Ceph's coll_t prints it (control bytes escaped as \\xNN).",
            1, 1, {}, CmdLscoll});
  cli->Add({"put", "STORE COLL OBJ FILE", "store FILE ('-' = stdin) as object OBJ",
            "Replaces the object's data with FILE's bytes, all or nothing (xattrs and omap\n"
            "are kept, like rados put). FILE is streamed in 16 MiB transactions into a\n"
            "temporary copy (the object's id with generation 0x736d727075740000) that the\n"
            "last transaction renames onto OBJ; memory stays bounded whatever the size. A\n"
            "regular FILE larger than df's available is refused with NoSpace before\n"
            "anything is written; a put that fails later removes its copy. A killed put\n"
            "leaves the copy behind; the next put of OBJ removes it.\n" +
                obj_note,
            4, 4, ObjectOptions(), CmdPut});
  cli->Add({"get", "STORE COLL OBJ FILE", "save object OBJ to FILE ('-' = stdout)",
            "Never overwrites FILE; FILE appears only once complete. The bytes go to an\n"
            "unnamed O_TMPFILE file in FILE's directory that is linked to FILE at the end,\n"
            "so even kill -9 leaves nothing (where O_TMPFILE is unsupported: a temporary\n"
            "FILE.smrstore-get.XXXXXX removed on errors and on SIGINT/SIGTERM).\n" + obj_note, 4, 4,
            ObjectOptions(), CmdGet});
  cli->Add({"rm", "STORE COLL OBJ", "remove an object", obj_note, 3, 3, ObjectOptions(),
            CmdRm});
  cli->Add({"ls", "STORE COLL", "list a collection's objects (Ceph order)",
            "Prints one object name per line, or every field with --json, in Ceph's\n"
            "collection-list order (by reversed hash bits, then namespace, key, name). A\n"
            "killed put's partial copy is marked (--json: \"partial_put\": true).",
            2, 2, {{"json", "", "print JSON"}}, CmdLs});
  cli->Add({"stat", "STORE COLL OBJ", "size and layout of an object", obj_note, 3, 3,
            With({{"json", "", "print JSON"}}, ObjectOptions()), CmdStat});
  cli->Add({"setxattr", "STORE COLL OBJ NAME [VALUE]", "set an attribute (VALUE or stdin)",
            "The object must exist. Without VALUE, the value is read from stdin.\n" + obj_note,
            4, 5, ObjectOptions(), CmdSetxattr});
  cli->Add({"getxattr", "STORE COLL OBJ NAME", "print an attribute's value and a newline",
            obj_note, 4, 4, ObjectOptions(), CmdGetxattr});
  cli->Add({"listxattr", "STORE COLL OBJ", "list attribute names", obj_note, 3, 3,
            ObjectOptions(), CmdListxattr});
  cli->Add({"setomapval", "STORE COLL OBJ KEY [VALUE]", "set an omap key (VALUE or stdin)",
            "The object must exist. Without VALUE, the value is read from stdin.\n" + obj_note,
            4, 5, ObjectOptions(), CmdSetomapval});
  cli->Add({"setomapvals", "STORE COLL OBJ", "set many omap keys in one transaction (stdin)",
            "The object must exist. Reads lines 'KEYHEX VALUEHEX' from stdin (key and value\n"
            "hex-encoded, '-' for an empty value) and sets all of them in one transaction:\n"
            "all or none. A key given twice takes its last value.\n" + obj_note,
            3, 3, ObjectOptions(), CmdSetomapvals});
  cli->Add({"getomapval", "STORE COLL OBJ KEY", "print an omap value and a newline", obj_note,
            4, 4, ObjectOptions(), CmdGetomapval});
  cli->Add({"listomapkeys", "STORE COLL OBJ", "list omap keys", obj_note, 3, 3,
            ObjectOptions(), CmdListomapkeys});
}

}  // namespace smr::tool

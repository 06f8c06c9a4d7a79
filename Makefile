# smrstore — the two commands of README.md, plus the pieces they are made of.
#   make demo   build, start a Ceph cluster of smrstore OSDs + a publishing store, print the console URL
#   make test   build and run every test suite
BUILD_DIR ?= build
BUILD_TYPE ?= RelWithDebInfo
TOOL := $(BUILD_DIR)/src/tools/smrstore-tool
JOBS ?= 2
# The teuthology-format suites (defined in qa/run.sh, beside MAKE_TEST_JOBS, the jobs of
# them that `make test`'s cluster tier runs).
SUITE_ARGS = $(shell qa/run.sh --suite-args)

.PHONY: all deps configure build deb test test-long test-alerts test-prometheus test-suites qa-matrix test-vm test-ansible test-osd-faults test-matrix crash-sweep crash-vm fuzz-long osd-bench drive-bench recovery-bench peers peers-hdd mutate unit demo demo-stop devbench storebench scale-bench clean

all: build

deps:
	@scripts/install-deps.sh

$(BUILD_DIR)/build.ninja:
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DSMRSTORE_WITH_CEPH=ON

configure: $(BUILD_DIR)/build.ninja

build: deps configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

# The Debian package an OSD host installs (apt install ./build/smrstore_*.deb): the preload
# and kv libraries in /usr/lib/smrstore, smrstore-tool, the ceph-volume plugin
# (`ceph-volume smrstore`), the mgr module and, when built, the console. ansible/ installs it.
deb: build
	cd $(BUILD_DIR) && cpack -G DEB >/dev/null && ls -1 $(abspath $(BUILD_DIR))/smrstore_*.deb

# Every suite of `make test`, as the tiers of the one test entry qa/run.sh (by cost; the
# map of the suites with times and how to run one test: doc/testing.md):
#   unit     ctest -L unit (GoogleTest: engine, Ceph adapter incl. the conformance suite
#            through SMRStore, the tool's folders; the layering check), every ctest entry's
#            tier label (qa/static/ctest_labels.py), clang's thread-safety analysis, mypy of
#            qa/tasks and qa/runner, the suites' lint (qa/runner/run.sh lint)
#   smoke    ctest -L smoke (the ABI, Pacific override-signature and preload checks against
#            Debian's ceph-osd, the ceph-volume plugin's tests, the nbdkit filter, what-if
#            against a real store), the tool's smoke scripts (qa/smoke/run.sh), trace checks
#            and replays (qa/traces), mgr module (pytest + mypy), its alert rules (promtool),
#            the smrstore-tool reference (doc/tools/check_reference.sh), the cephadm patch
#            (qa/cephadm), ansible-lint and the preflight role on an emulated host
#            (qa/ansible/lint.sh), the web console (tsc, Vitest, build)
#   crash    the short crash sweep (kill -9 and power cuts, then fsck and every acknowledged
#            write read back; qa/crash) and a short libFuzzer run of every decoder (qa/fuzz)
#   cluster  real Debian Ceph clusters as jobs of the teuthology-format suites of
#            qa/suites/smrstore run by qa/runner/run.sh (teuthology 1.3.0's own matrix and
#            task runner): the `checks` jobs (telemetry in `ceph service dump`, the mgr module
#            in the real ceph-mgr, Playwright against that stack, RADOS/EC/RBD/RGW on smrstore
#            OSDs, bad input, the upgrade gate, ceph-volume, the Grafana dashboard's queries
#            and the alert rules in a real Prometheus) and a fixed subset of the `basic` and
#            `thrash` matrix (MAKE_TEST_JOBS in qa/run.sh); `make test-suites` runs every job
#   vm       the device suite on real kernel zoned devices in a QEMU VM (qa/vm/run.sh)
# One tier alone: qa/run.sh unit (or smoke, ...); `make test-long` runs the `long` tier.
test: build
	BUILD_DIR=$(BUILD_DIR) JOBS=$(JOBS) qa/run.sh unit smoke crash cluster vm

# The `long` tier (hours): what `make test` does not run, one step after another: the full
# crash sweep, power cuts in the VM, every suite job, the option-space run, the long fuzz
# run, mutation testing, ansible on a systemd VM (each is also its own target below).
test-long: build
	BUILD_DIR=$(BUILD_DIR) JOBS=$(JOBS) qa/run.sh long

# The Prometheus alert rules of the mgr module's /metrics (mgr-module/monitoring/alerts.yml):
# every metric name checked against what the module renders, `promtool check rules`, and
# `promtool test rules` with a firing and a non-firing case per alert (a few seconds, no
# build, no cluster; also part of `make test`). Needs promtool (package prometheus, `make deps`).
test-alerts:
	mgr-module/monitoring/check.sh

# The Grafana dashboard's queries and the alert rules evaluated by Debian's prometheus
# scraping the mgr module of a live cluster (2 smrstore OSDs + a hybrid-drive service daemon);
# SMRStoreDaemonStale forced to fire by stopping osd.1 (~2.5 min, as root; also a `checks`
# job of `make test`).
test-prometheus: build
	mgr-module/monitoring/live_check.sh

# Every job of the teuthology-format suites (qa/suites/smrstore: checks, basic, thrash,
# console; doc/testing.md, "QA suites"), one after another on this machine; a PASS/FAIL line per job
# and a summary with each job's time and log. SUBSET=I/N runs teuthology's subset I of N
# (every facet member still appears), SEED=S makes picks repeatable, FILTER=a,b keeps jobs
# whose description contains one. Not part of `make test` (whose cluster tier runs
# MAKE_TEST_JOBS of qa/run.sh).
test-suites: build
	qa/runner/run.sh run $(SUITE_ARGS) \
	  $(if $(SUBSET),--subset $(SUBSET)) --seed $(or $(SEED),1) $(if $(FILTER),--filter '$(FILTER)')

# The suites' job matrix as teuthology builds it (no cluster started): one line per job and the
# facets with how many jobs use each member.
qa-matrix:
	qa/runner/run.sh matrix $(SUITE_ARGS) \
	  $(if $(SUBSET),--subset $(SUBSET)) --seed $(or $(SEED),1)

# The device conformance suite on real kernel zoned devices (null_blk zoned, QEMU NVMe ZNS)
# inside a QEMU TCG VM; installs its own packages (scripts/install-deps.sh vm); see
# qa/vm/run.sh. Also the vm tier of `make test` (qa/run.sh vm).
test-vm: build
	qa/vm/run.sh $(BUILD_DIR)/src/os/smrstore/smrstore_tests

# ansible/site.yml against a real systemd Debian 12 host in a QEMU VM (qa/vm/host/): lab
# mon + mgr, the smrstore package (make deb), two smrstore OSDs on QEMU NVMe ZNS drives, the
# mgr module; second run changed=0, rados put/get, a guest reboot, the OSDs back up and the
# objects read back (qa/ansible/run.sh, ~30-40 min under TCG; builds the package first).
# Not part of `make test`; qa/ansible/lint.sh is its fast part (ansible-lint, syntax check,
# emulated preflight).
test-ansible: deb
	qa/ansible/run.sh

# The long fault suite on real smrstore OSDs (Debian's ceph-osd + libsmrstore_osd.so), not
# part of `make test`: kill -9 of all OSDs under writes, one OSD killed and recovered,
# backfill onto smrstore, PG split/merge under load, a flipped byte found by deep scrub and
# repaired, ceph-objectstore-tool list/fsck/export/import, zone GC under churn
# (qa/ceph/0006_osd_faults.sh, the `checks/long-0006-osd-faults` job of qa/suites/smrstore).
test-osd-faults: build
	qa/runner/run.sh run --suite smrstore/checks --filter checks/long-0006

# The long option-space run (doc/testing.md, "The option-space run"), not part of
# `make test` (which runs ten drawn configurations of 120 steps in the unit tests): seeds
# 1..200 of store/store_matrix_test.cc, 300 steps each; every seed prints its configuration
# and what it reached; a failure names SMRSTORE_MATRIX_SEED=N to replay it. Fails today on
# the open findings listed there.
test-matrix: build
	SMRSTORE_MATRIX_STRICT_ZONES=$${SMRSTORE_MATRIX_STRICT_ZONES:-0} SMRSTORE_MATRIX_SEEDS=$${SMRSTORE_MATRIX_SEEDS:-200} SMRSTORE_MATRIX_TXNS=$${SMRSTORE_MATRIX_TXNS:-300} \
	  $(BUILD_DIR)/src/os/smrstore/smrstore_tests --gtest_filter='StoreMatrix*'

# The full crash sweep (qa/crash/README.md; doc/testing.md, "Crash sweep"), not part of
# `make test` (which runs a short one): 2000 kill -9 points at random instants of
# smrstore-tool put/overwrite/rm/setxattr/setomapval/gc/rebuild-meta and 1000 power cuts
# through the fault-injecting device; after each, fsck --deep and every acknowledged write
# read back byte-exact. Prints points tried, acknowledged objects verified, failures.
# SMRSTORE_CRASH_SEED=N repeats a run's choices.
crash-sweep: build
	qa/crash/run.sh --full $(BUILD_DIR)

# Power cuts that also drop the metadata database's unsynced writes: the store and its
# emulated drives on ext4 over dm-flakey (drop_writes) in the QEMU VM of qa/vm, 30 points
# (~23 min under TCG); not part of `make test` (qa/crash/README.md).
crash-vm: build
	qa/crash/vm_powercut.sh $(BUILD_DIR) 30

# The libFuzzer targets (src/os/smrstore/fuzz/README.md) for 10^7 executions each, two at a
# time, in their own clang build dir (build-fuzz); not part of `make test`, which runs each
# for 20 s. Summary (executions, exec/s, crashes, corpus size): build-fuzz/fuzz/out-long/
# summary.txt; figures in doc/testing.md, "Fuzzing".
fuzz-long: deps
	qa/fuzz/run.sh --long

# 4 smrstore OSDs vs 4 BlueStore (file-backed) vs 4 memstore OSDs: rados bench 4 MiB
# write/read, 4 KiB write, p99 latencies, smrstore's device WA (doc/performance.md,
# "Real OSDs"); ~10 min. Output in $(BUILD_DIR)/perf/. OSD_BENCH_PERF=1 adds a `perf` profile
# of each store's OSDs over the 4 MiB and 4 KiB write phases (perf-STORE-PHASE.txt there).
osd-bench: build
	sh qa/perf/osd_bench.sh $(abspath $(BUILD_DIR))/perf

# smrstore OSDs on emulated HM-SMR drives vs BlueStore OSDs on CMR drives (FUSE files served
# by nbdfuse + nbdkit through the project's timing filter), the SAME HDD timing model on both
# (default 25 MB/s, 8 ms seek; DRIVE_BENCH_MBPS / DRIVE_BENCH_SEEK_MS), 4 OSDs x one 1.5 GiB
# drive (96 x 16 MiB zones), pool size 3 (128 PGs), filled to 60 % of raw: rados bench 4 MiB write / seq / rand read, 4 KiB
# write, 4 MiB overwrites and 4 KiB writes with p99 (rados_lat.py), verified RBD 4 KiB random
# writes; runs alternate S, B, S, B (DRIVE_BENCH_RUNS each); medians, spread and ratios
# (issue 46 goal 1; doc/performance.md, "On a drive model"). ~22 min; not part of `make
# test`. Output in $(BUILD_DIR)/drive-bench/.
drive-bench: build
	SMRSTORE_BUILD_DIR=$(abspath $(BUILD_DIR)) bash qa/perf/drive_bench.sh $(abspath $(BUILD_DIR))/drive-bench

# Backfill of a replaced OSD on the same drive model as drive-bench (qa/perf/drive_model_lib.sh):
# 4 OSDs x one 1.5 GiB drive, pool size 3 (128 PGs) filled to 50 % of raw / 3 in 4 MiB objects
# (a quarter deleted); osd.0 stopped, destroyed, its drive wiped, re-created with the same id;
# timed until all PGs are active+clean, backfill at full speed (the same recovery settings
# for both). Backfill MB/s and seconds, the source drives' reads and seeks per GB, the new
# drive's writes; runs alternate S, B, S, B (RECOVERY_BENCH_RUNS each) (issue 46 goal 3;
# doc/performance.md, "Recovery on a drive model"). ~12 min (2 runs each); not part of
# `make test`. Output in $(BUILD_DIR)/recovery-bench/.
recovery-bench: build
	SMRSTORE_BUILD_DIR=$(abspath $(BUILD_DIR)) bash qa/perf/recovery_bench.sh $(abspath $(BUILD_DIR))/recovery-bench

# smrstore vs F2FS, btrfs and dm-zoned (+ext4, +XFS) on the same null_blk zoned device in
# one QEMU VM run, same object workload (smrstore-tool bench): throughput / raw device and
# device-level WA (doc/performance.md, "Peers on a real zoned device"). Takes 15-30 min
# under TCG, so not part of `make test`. Output in $(BUILD_DIR)/peers/.
peers: build
	SMRSTORE_PEERS_DIR=$(abspath $(BUILD_DIR))/peers qa/vm/peers.sh $(TOOL)

# The same on a zoned device with an HDD's cost: a QEMU NVMe ZNS namespace whose backing
# drive nbdkit serves through the emulated drive's timing model (PEERS_DEVICE=hdd in
# qa/vm/peers.sh; doc/performance.md, "Peers on an HDD-cost zoned device"). PEERS_MBPS and
# PEERS_SEEK_MS choose the model (default here 25 MB/s, 80 ms: see the doc). Output in
# $(BUILD_DIR)/peers-hdd/.
peers-hdd: build
	PEERS_DEVICE=hdd PEERS_MBPS=$${PEERS_MBPS:-25} PEERS_SEEK_MS=$${PEERS_SEEK_MS:-80} \
	  SMRSTORE_PEERS_DIR=$(abspath $(BUILD_DIR))/peers-hdd qa/vm/peers.sh $(TOOL)

# Mutation testing, not part of `make test` (about an hour on 2 cores; doc/testing.md):
# the C++ engine with universalmutator (qa/mutate/engine.sh: a seeded sample of mutants of
# the record format, superblock, zone state machine, mount reconciliation, read path, GC,
# fsck, built and tested in a scratch copy under $(SMRSTORE_MUTATE_DIR), never in build/),
# then the mgr module with mutmut (qa/mutate/python.sh), then both scores side by side.
# Reports: $(SMRSTORE_MUTATE_DIR)/cpp-report.txt and python-report.txt.
SMRSTORE_MUTATE_DIR ?= /var/tmp/smrstore-mutate
mutate:
	@rm -f $(SMRSTORE_MUTATE_DIR)/cpp-report.txt $(SMRSTORE_MUTATE_DIR)/python-report.txt
	@rc=0; \
	SMRSTORE_MUTATE_DIR=$(SMRSTORE_MUTATE_DIR) JOBS=$(JOBS) bash qa/mutate/engine.sh || rc=1; \
	if [ -f qa/mutate/python.sh ]; then \
	  SMRSTORE_MUTATE_DIR=$(SMRSTORE_MUTATE_DIR) bash qa/mutate/python.sh || rc=1; \
	fi; \
	SMRSTORE_MUTATE_DIR=$(SMRSTORE_MUTATE_DIR) sh qa/mutate/summary.sh; \
	exit $$rc

# The unit tier alone (qa/run.sh unit).
unit: build
	BUILD_DIR=$(BUILD_DIR) JOBS=$(JOBS) qa/run.sh unit

# A one-node Debian Ceph cluster: 3 smrstore OSDs (Debian's ceph-osd + libsmrstore_osd.so)
# under a rados workload, the smrstore mgr module, one store publishing beside them; prints
# the console URL with a token. `make demo-stop` ends it.
demo: build
	qa/demo/demo.sh $(TOOL)

demo-stop:
	qa/demo/stop.sh

# Emulated drive vs plain file throughput (doc/performance.md).
devbench: build
	$(TOOL) devbench --size 1G --rounds 9

# Store PUT/GET vs the raw drive, HDD timing model and page cache (doc/performance.md).
storebench: build
	$(TOOL) storebench --total 1G --rounds 5 --mbps 250
	$(TOOL) storebench --total 1G --rounds 5

# Mount time and memory against live data (16 GB .. 1 TB on payload-dropping drives, ~4 GB
# of disk at the largest size, ~10 min; doc/performance.md "Mount time and memory per TB").
scale-bench: build
	$(TOOL) scale-bench --cold

clean:
	rm -rf $(BUILD_DIR)

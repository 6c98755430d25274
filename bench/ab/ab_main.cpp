// ab-bench: the A/B runner. Compares two arms in this binary (or peers), or the same arm
// of two builds at two git revisions, and writes reports/bench/depth/<date>-<name>.{md,json,svg}.
// Exit codes (the shared table, engine/core/exit_code.h): 0 a verdict was given, 4 the
// report was written but the verdict is REFUSED (no passing gate record for the timed
// binaries), 1 usage error, 70 any other failure (named on stderr).
// `ab-bench gates` runs a gate command and writes the gate record the runs then cite
// (exit 0 when the gates passed, 4 when they did not, the record written either way).
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "bench/ab/ab_report.h"
#include "bench/ab/ab_run.h"
#include "bench/ab/arm.h"
#include "bench/ab/gate_evidence.h"
#include "bench/ab/machine_info.h"
#include "bench/ab/rev_builds.h"
#include "tools/process.h"
#include "engine/core/exit_code.h"
#include "engine/cli/args.h"

namespace {
using namespace music3::bench;
using music3::cli::Args;
using music3::cli::UsageError;
namespace exit_code = music3::exit_code;

const char* const kUsage =
    "usage: ab-bench --a SPEC --b SPEC --name NAME [options]\n"
    "       ab-bench --rev-a REV --rev-b REV --name NAME [--arm ARM:DEVICE[:GEOMETRY]] [--repo DIR]\n"
    "                [--work-dir DIR] [--cmake-args ARGS] [--targets TARGETS] [options]\n"
    "       ab-bench gates --cmd CMD --binaries PATH[,PATH...] --out FILE [--cwd DIR] [--git-rev REV]\n"
    "SPEC: depth:ARM:DEVICE[:GEOMETRY] | peer:VARIANT:DEVICE[:GEOMETRY] | cmd:COMMAND | music3:PATH:ARM:DEVICE[:GEOMETRY]\n"
    "      | vocoder:ARM:DEVICE[:GEOMETRY[:LATENTS]] | vocoder-peer:upstream|folded:DEVICE[:GEOMETRY[:LATENTS]]\n"
    "      | lm:ARM:DEVICE[:full|small[:KV]] | lm-peer:upstream|static_graph:DEVICE[:full|tiny[:KV]]\n"
    "      | dit:ARM:DEVICE[:full|mid|tiny[:LENGTH]] | dit-peer:eager_b1x2|eager_b2|compile_b2:DEVICE[:full|tiny[:LENGTH]]\n"
    "      | generate:ARM:DEVICE:CHECKPOINT[:DURATION[:STEPS]] | generate-peer:DEVICE:CHECKPOINT[:DURATION[:STEPS]]\n"
    "      (a whole song per frame, <|audio_end|> masked: run with --frames 1 --warmup 0)\n"
    "      ARM host|device|auto, DEVICE cpu|cuda, GEOMETRY full|mid|tiny (default full), VARIANT upstream|kv|graph\n"
    "      An in-process SPEC may end in +disable=PROVIDER[,PROVIDER...] and/or +enable=PROVIDER[,...]: that arm runs\n"
    "      under its own provider set (a one-binary A/B of a provider)\n"
    "options: --reps N (>= 9, default 15) --frames N (20) --warmup N (3) --seed S (0) --threads N (0: all cores)\n"
    "         --gates-json FILE[,FILE...] and/or --gates-cmd CMD (two-build mode: {src} and {build} are replaced)\n"
    "         --out-dir DIR (default SOURCE/reports/bench/depth) --git-rev REV --peer-timeout SECONDS (600)\n"
    "         --python PYTHON (peers; default $MUSIC3_PEER_PYTHON or python3)\n"
    "Without a passing gate record for every timed binary of ours the verdict is REFUSED (exit 4).\n";

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string p; std::getline(in, p, ',');)
    if (!p.empty()) out.push_back(p);
  return out;
}

std::string source_dir() {
  const char* env = std::getenv("MUSIC3_SOURCE_DIR");
  return env && *env ? env : MUSIC3_DEFAULT_SOURCE_DIR;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
  return s;
}

std::string joined(const std::vector<std::string>& argv) {
  std::string s = "ab-bench";
  for (const auto& a : argv) {
    s += ' ';
    s += music3::tools::shell_quote(a);
  }
  return s;
}

int gates_command(const std::vector<std::string>& argv) {
  Args a(argv, {"--cmd", "--binaries", "--out", "--cwd", "--git-rev"}, {});
  if (!a.has("--cmd") || !a.has("--binaries") || !a.has("--out")) throw UsageError("gates needs --cmd, --binaries and --out");
  const std::string cwd = a.get_or("--cwd", ".");
  const GateEvidence r = run_gates(*a.get("--cmd"), cwd, split_list(*a.get("--binaries")),
                                 a.get_or("--git-rev", git_revision(cwd)));
  write_gate_evidence(r, *a.get("--out"));
  std::cout << "gates: '" << r.command << "' exited " << r.exit_code << ", " << r.tests_total << " tests, "
            << r.tests_failed << " failed, " << r.tests_skipped << " skipped: " << (r.passed ? "PASSED" : "FAILED")
            << " (record " << *a.get("--out") << ")\n";
  return r.passed ? exit_code::kOk : exit_code::kBaselineFailed;
}

int ab_command(const std::vector<std::string>& argv) {
  Args a(argv,
         {"--a", "--b", "--rev-a", "--rev-b", "--arm", "--repo", "--work-dir", "--cmake-args", "--targets", "--name",
          "--reps", "--frames", "--warmup", "--seed", "--threads", "--gates-json", "--gates-cmd", "--out-dir",
          "--git-rev", "--peer-timeout", "--python"},
         {});
  const bool arms_mode = a.has("--a") || a.has("--b"), rev_mode = a.has("--rev-a") || a.has("--rev-b");
  if (arms_mode == rev_mode) throw UsageError("give either --a and --b, or --rev-a and --rev-b");
  if (arms_mode && !(a.has("--a") && a.has("--b"))) throw UsageError("--a and --b go together");
  if (rev_mode && !(a.has("--rev-a") && a.has("--rev-b"))) throw UsageError("--rev-a and --rev-b go together");
  if (!a.has("--name")) throw UsageError("--name is required (it names the report files)");
  const std::string name = *a.get("--name");
  if (!std::regex_match(name, std::regex("[A-Za-z0-9._-]+")))
    throw UsageError("--name '" + name + "' may hold only letters, digits, '.', '_' and '-'");

  AbOptions o;
  o.reps = static_cast<int>(a.get_int_or("--reps", 15, 9, 10000));
  o.frames = static_cast<int>(a.get_int_or("--frames", 20, 1, 100000));
  o.warmup = static_cast<int>(a.get_int_or("--warmup", 3, 0, 100000));
  const std::string src = source_dir();
  ArmContext ctx;
  ctx.source_dir = src;
  const char* py = std::getenv("MUSIC3_PEER_PYTHON");
  ctx.python = a.get_or("--python", py && *py ? py : "python3");
  ctx.seed = a.get_u64_or("--seed", 0);
  ctx.threads = static_cast<int>(a.get_int_or("--threads", 0, 0, 1024));
  ctx.peer_timeout_s = static_cast<int>(a.get_int_or("--peer-timeout", 600, 1, 86400));

  ReportContext rc;
  rc.name = name;
  rc.date = utc_date();
  rc.started_utc = utc_now_iso8601();
  rc.command_line = joined(argv);
  rc.cpu = cpu_info();
  rc.gpu_start = gpu_state();
  for (const auto& path : split_list(a.get_or("--gates-json", ""))) rc.gate_evidence.push_back(read_gate_evidence(path));

  std::string spec_a, spec_b;
  if (arms_mode) {
    spec_a = *a.get("--a");
    spec_b = *a.get("--b");
    rc.git_rev = a.get_or("--git-rev", git_revision(src));
    if (auto cmd = a.get("--gates-cmd")) {
      std::cerr << "ab-bench: running the gates: " << *cmd << "\n";
      rc.gate_evidence.push_back(run_gates(*cmd, src, {self_executable()}, rc.git_rev));
    }
  } else {
    const std::string repo = a.get_or("--repo", src);
    const std::string work = a.get_or("--work-dir", "/tmp/music3-ab-builds");
    const std::string arm = a.get_or("--arm", "device:cuda:full");
    std::set<std::string> gated;
    nlohmann::json revisions;
    for (auto [flag, label, spec] : {std::tuple{"--rev-a", "A", &spec_a}, {"--rev-b", "B", &spec_b}}) {
      const RevBuild b = build_revision(repo, *a.get(flag), work, a.get_or("--cmake-args", ""), a.get_or("--targets", ""),
                                        std::cerr);
      *spec = "music3:" + b.music3 + ":" + arm;
      revisions[label] = {{"rev", b.rev}, {"commit", b.commit}, {"src", b.src_dir}, {"build", b.build_dir}};
      if (auto cmd = a.get("--gates-cmd"); cmd && gated.insert(b.build_dir).second) {
        const std::string concrete = replace_all(replace_all(*cmd, "{src}", b.src_dir), "{build}", b.build_dir);
        std::cerr << "ab-bench: running the gates of " << b.rev << ": " << concrete << "\n";
        rc.gate_evidence.push_back(run_gates(concrete, b.src_dir, {b.music3}, b.commit));
      }
    }
    rc.revisions = revisions;
    rc.git_rev = revisions["A"]["commit"].get<std::string>() + " vs " + revisions["B"]["commit"].get<std::string>();
  }

  std::cerr << "ab-bench: starting A = " << spec_a << "\n";
  std::unique_ptr<Arm> arm_a = make_arm(spec_a, ctx);
  std::cerr << "ab-bench: starting B = " << spec_b << "\n";
  std::unique_ptr<Arm> arm_b = make_arm(spec_b, ctx);
  const std::string out_dir = a.get_or("--out-dir", src + "/reports/bench/depth");
  std::filesystem::create_directories(out_dir);
  const std::string samples_path = out_dir + "/" + rc.date + "-" + rc.name + ".samples.jsonl";
  std::ofstream samples(samples_path, std::ios::trunc);
  if (!samples) throw std::runtime_error("cannot write " + samples_path);
  std::cerr << "ab-bench: streaming samples to " << samples_path << "\n";
  const AbResult result = run_ab(*arm_a, spec_a, *arm_b, spec_b, o, rc.gate_evidence, std::cerr, &samples);
  rc.finished_utc = utc_now_iso8601();
  rc.gpu_end = gpu_state();
  const ReportPaths paths = write_ab_report(result, rc, out_dir);
  std::cout << name << ": B against A: " << verdict_name(result.verdict.verdict) << "  A " << median(result.a.rep_ms)
            << " ms/frame, B " << median(result.b.rep_ms) << " ms/frame, B/A " << result.ratio << " [" << result.ratio_ci.lo
            << ", " << result.ratio_ci.hi << "]\n  " << paths.md << "\n  " << paths.json << "\n  " << paths.svg << "\n";
  return result.verdict.verdict == Verdict::Refused ? exit_code::kBaselineFailed : exit_code::kOk;
}

}  // namespace

int main(int argc, char** argv) {
  std::signal(SIGPIPE, SIG_IGN);  // a peer that dies mid-request is reported, not fatal
  std::vector<std::string> args(argv + 1, argv + argc);
  try {
    if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
      std::cout << kUsage;
      return 0;
    }
    if (!args.empty() && args[0] == "gates") return gates_command({args.begin() + 1, args.end()});
    return ab_command(args);
  } catch (const UsageError& e) {
    std::cerr << "ab-bench: " << e.what() << "\n" << kUsage;
    return music3::exit_code::kUsage;
  } catch (const std::exception& e) {
    std::cerr << "ab-bench: error: " << e.what() << "\n";
    return music3::exit_code::kSoftware;
  }
}

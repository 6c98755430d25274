// make_arm(): parses an arm spec (arm.h) and builds the arm.
#include <unistd.h>

#include <climits>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "bench/ab/arm.h"
#include "bench/ab/dit_in_process_arm.h"
#include "bench/ab/generate_in_process_arm.h"
#include "bench/ab/in_process_arm.h"
#include "bench/ab/lm_in_process_arm.h"
#include "bench/ab/music3_cli_arm.h"
#include "bench/ab/peer_process.h"
#include "bench/ab/provider_set_arm.h"
#include "bench/ab/vocoder_in_process_arm.h"
#include "tools/process.h"

namespace music3::bench {
namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::istringstream in(s);
  for (std::string p; std::getline(in, p, sep);) parts.push_back(p);
  return parts;
}

[[noreturn]] void bad(const std::string& spec, const std::string& why) {
  throw std::invalid_argument("arm '" + spec + "': " + why +
                              " (expected depth:ARM:DEVICE[:GEOMETRY], peer:VARIANT:DEVICE[:GEOMETRY], cmd:COMMAND, "
                              "music3:PATH:ARM:DEVICE[:GEOMETRY], vocoder:ARM:DEVICE[:GEOMETRY[:LATENTS]], "
                              "vocoder-peer:VARIANT:DEVICE[:GEOMETRY[:LATENTS]], lm:ARM:DEVICE[:GEOMETRY[:KV]], "
                              "lm-peer:VARIANT:DEVICE[:GEOMETRY[:KV]], dit[-loop]:ARM:DEVICE[:GEOMETRY[:LENGTH]], "
                              "dit-peer:VARIANT:DEVICE[:GEOMETRY[:LENGTH]], generate:ARM:DEVICE:CHECKPOINT[:DURATION"
                              "[:STEPS]] or generate-peer:DEVICE:CHECKPOINT[:DURATION[:STEPS]])");
}

// A numeric field of a spec (KV, LATENTS, LENGTH): the whole text must be an integer within int's range.
int64_t integer_field(const std::string& spec, const std::string& name, const std::string& text) {
  size_t used = 0;
  int64_t v = 0;
  try {
    v = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || v < INT_MIN || v > INT_MAX)
    bad(spec, name + " '" + text + "' is not an integer");
  return v;
}

// DURATION of a generate spec: the whole text must be a number (seconds).
double seconds_field(const std::string& spec, const std::string& text) {
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size()) bad(spec, "DURATION '" + text + "' is not a number of seconds");
  return v;
}

}  // namespace

std::string self_executable() {
  char buf[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) throw std::runtime_error("cannot read /proc/self/exe");
  return std::string(buf, static_cast<size_t>(n));
}

std::unique_ptr<Arm> make_arm(const std::string& full_spec, const ArmContext& ctx) {
  auto [spec, providers] = split_provider_set(full_spec);
  if (!providers.empty())
    return std::make_unique<ProviderSetArm>(full_spec, providers, [&, base = spec] { return make_arm(base, ctx); });
  const auto colon = spec.find(':');
  if (colon == std::string::npos) bad(spec, "no kind");
  const std::string kind = spec.substr(0, colon), rest = spec.substr(colon + 1);
  if (kind == "cmd") {
    if (rest.empty()) bad(spec, "empty command");
    return std::make_unique<PeerArm>(spec, rest, "", ctx.peer_timeout_s);
  }
  const auto f = split(rest, ':');
  if (kind == "depth") {
    if (f.size() < 2 || f.size() > 3) bad(spec, "depth takes ARM:DEVICE[:GEOMETRY]");
    return std::make_unique<InProcessDepthArm>(spec, f[0], f[1], f.size() == 3 ? f[2] : "full", ctx);
  }
  if (kind == "peer") {
    if (f.size() < 2 || f.size() > 3) bad(spec, "peer takes VARIANT:DEVICE[:GEOMETRY]");
    const std::string script = ctx.source_dir + "/bench/depth/torch_depth_peer.py";
    const std::string command = tools::shell_quote(ctx.python) + " " + tools::shell_quote(script) + " --serve --variant " +
                                tools::shell_quote(f[0]) + " --device " + tools::shell_quote(f[1]) + " --geometry " +
                                tools::shell_quote(f.size() == 3 ? f[2] : "full") + " --seed " + std::to_string(ctx.seed);
    return std::make_unique<PeerArm>(spec, command, script, ctx.peer_timeout_s);
  }
  if (kind == "lm" || kind == "lm-peer") {
    if (f.size() < 2 || f.size() > 4) bad(spec, kind + " takes ARM:DEVICE[:GEOMETRY[:KV]]");
    const std::string geometry = f.size() >= 3 ? f[2] : "full";
    const int kv = f.size() == 4 ? int(integer_field(spec, "KV", f[3])) : 300;
    if (kind == "lm") return std::make_unique<InProcessLmArm>(spec, f[0], f[1], geometry, kv, ctx);
    const std::string script = ctx.source_dir + "/bench/lm/torch_lm_peer.py";
    const std::string command = tools::shell_quote(ctx.python) + " " + tools::shell_quote(script) +
                                " --serve --variants " + tools::shell_quote(f[0]) + " --device " +
                                tools::shell_quote(f[1]) + " --geometry " + tools::shell_quote(geometry) + " --kv " +
                                std::to_string(kv) + " --seed " + std::to_string(ctx.seed);
    return std::make_unique<PeerArm>(spec, command, script, ctx.peer_timeout_s);
  }
  if (kind == "dit" || kind == "dit-loop" || kind == "dit-peer") {
    if (f.size() < 2 || f.size() > 4) bad(spec, kind + " takes ARM:DEVICE[:GEOMETRY[:LENGTH]]");
    const std::string geometry = f.size() >= 3 ? f[2] : "full";
    const int64_t length = f.size() == 4 ? integer_field(spec, "LENGTH", f[3]) : 689;
    if (kind != "dit-peer")
      return std::make_unique<InProcessDitArm>(spec, f[0], f[1], geometry, length, kind == "dit-loop", ctx);
    const std::string script = ctx.source_dir + "/bench/acoustic/torch_dit_peer.py";
    const std::string command = tools::shell_quote(ctx.python) + " " + tools::shell_quote(script) +
                                " --serve --variants " + tools::shell_quote(f[0]) + " --device " +
                                tools::shell_quote(f[1]) + " --geometry " + tools::shell_quote(geometry) +
                                " --length " + std::to_string(length) + " --seed " + std::to_string(ctx.seed);
    return std::make_unique<PeerArm>(spec, command, script, ctx.peer_timeout_s);
  }
  if (kind == "vocoder" || kind == "vocoder-peer") {
    if (f.size() < 2 || f.size() > 4) bad(spec, kind + " takes ARM:DEVICE[:GEOMETRY[:LATENTS]]");
    const std::string geometry = f.size() >= 3 ? f[2] : "full";
    const int64_t latents = f.size() == 4 ? integer_field(spec, "LATENTS", f[3]) : 689;
    if (kind == "vocoder") return std::make_unique<InProcessVocoderArm>(spec, f[0], f[1], geometry, latents, ctx);
    const std::string script = ctx.source_dir + "/bench/vocoder/torch_vocoder_peer.py";
    const std::string command = tools::shell_quote(ctx.python) + " " + tools::shell_quote(script) + " --serve --variant " +
                                tools::shell_quote(f[0]) + " --device " + tools::shell_quote(f[1]) + " --geometry " +
                                tools::shell_quote(geometry) + " --latents " + std::to_string(latents) + " --seed " +
                                std::to_string(ctx.seed);
    return std::make_unique<PeerArm>(spec, command, script, ctx.peer_timeout_s);
  }
  if (kind == "generate" || kind == "generate-peer") {
    const size_t device_at = kind == "generate" ? 1 : 0;  // generate has ARM first
    if (f.size() < device_at + 2 || f.size() > device_at + 4)
      bad(spec, kind + (kind == "generate" ? " takes ARM:" : " takes ") + "DEVICE:CHECKPOINT[:DURATION[:STEPS]]");
    const std::string& device = f[device_at];
    const std::string& checkpoint = f[device_at + 1];
    const std::string duration = f.size() > device_at + 2 ? f[device_at + 2] : "10";
    const int steps = f.size() > device_at + 3 ? int(integer_field(spec, "STEPS", f[device_at + 3])) : 30;
    if (kind == "generate")
      return std::make_unique<InProcessGenerateArm>(spec, f[0], device, checkpoint, seconds_field(spec, duration),
                                                    steps, ctx);
    const std::string script = ctx.source_dir + "/bench/pipeline/diffusers_pipeline_peer.py";
    const std::string command = tools::shell_quote(ctx.python) + " " + tools::shell_quote(script) +
                                " --serve --checkpoint " + tools::shell_quote(checkpoint) + " --device " +
                                tools::shell_quote(device) + " --duration " + tools::shell_quote(duration) +
                                " --steps " + std::to_string(steps) + " --seed " + std::to_string(ctx.seed) +
                                " --warmup-duration 2";  // the runner's discarded repetition is the full warm-up
    return std::make_unique<PeerArm>(spec, command, script, ctx.peer_timeout_s);
  }
  if (kind == "music3") {
    if (f.size() < 3 || f.size() > 4) bad(spec, "music3 takes PATH:ARM:DEVICE[:GEOMETRY]");
    return std::make_unique<Music3CliArm>(spec, f[0], f[1], f[2], f.size() == 4 ? f[3] : "full", ctx);
  }
  bad(spec, "unknown kind '" + kind + "'");
}

}  // namespace music3::bench

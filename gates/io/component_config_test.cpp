// ComponentConfig: typed getters over a diffusers config.json, and the refusals for
// a missing key, a value of the wrong type, a file that is not a JSON object.
#include <gtest/gtest.h>

#include "engine/io/component_config.h"
#include "gates/io/io_test_support.h"

namespace music3::io {
namespace {

using namespace music3::io::testing;

constexpr const char* kDepthConfig = R"({
  "_class_name": "MiniMaxMusic3RVQDepthDecoder",
  "_diffusers_version": "0.40.0",
  "hidden_size": 4096,
  "num_layers": 4,
  "rms_norm_eps": 1e-06,
  "rope_theta": 1000000,
  "shift_terminal": null,
  "invert_sigmas": true,
  "as_text": "4096",
  "as_float": 4096.0,
  "too_big": 18446744073709551615,
  "upsampling_ratios": [8, 8, 4, 2]
})";

class ComponentConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path = dir.file("config.json");
    write_bytes(path, kDepthConfig);
  }
  ScratchDir dir;
  std::string path;
};

TEST_F(ComponentConfigTest, TypedGettersReadTheValues) {
  ComponentConfig c(path);
  EXPECT_EQ(c.path(), path);
  EXPECT_EQ(c.class_name(), "MiniMaxMusic3RVQDepthDecoder");
  EXPECT_EQ(c.get_string("_diffusers_version"), "0.40.0");
  EXPECT_EQ(c.get_int("hidden_size"), 4096);
  EXPECT_EQ(c.get_int("num_layers"), 4);
  EXPECT_EQ(c.get_float("rms_norm_eps"), 1e-6);
  EXPECT_EQ(c.get_float("rope_theta"), 1e6);  // an integer is a number
  EXPECT_TRUE(c.get_bool("invert_sigmas"));
  EXPECT_TRUE(c.has("shift_terminal"));
  EXPECT_FALSE(c.has("num_codebooks"));
}

TEST_F(ComponentConfigTest, DefaultsApplyOnlyWhenAbsentOrNull) {
  ComponentConfig c(path);
  EXPECT_EQ(c.get_int_or("num_codebooks", 8), 8);
  EXPECT_EQ(c.get_int_or("shift_terminal", 3), 3);
  EXPECT_EQ(c.get_int_or("hidden_size", 1), 4096);
  EXPECT_EQ(c.get_float_or("shift_terminal", 0.5), 0.5);
  EXPECT_EQ(c.get_float_or("rms_norm_eps", 0.5), 1e-6);
  EXPECT_EQ(c.get_float_or("guidance_scale", 1.7), 1.7);
}

TEST_F(ComponentConfigTest, MissingKey) {
  ComponentConfig c(path);
  EXPECT_FILE_ERROR(path, c.get_int("num_codebooks"), "missing key 'num_codebooks'");
  EXPECT_FILE_ERROR(path, c.get_float("guidance_scale"), "missing key 'guidance_scale'");
  EXPECT_FILE_ERROR(path, c.get_string("_name_or_path"), "missing key '_name_or_path'");
  EXPECT_FILE_ERROR(path, c.get_bool("use_dynamic_shifting"), "missing key 'use_dynamic_shifting'");
  write_bytes(path, R"({"hidden_size": 4096})");
  ComponentConfig nameless(path);
  EXPECT_FILE_ERROR(path, nameless.class_name(), "missing key '_class_name'");
}

TEST_F(ComponentConfigTest, WrongType) {
  ComponentConfig c(path);
  EXPECT_FILE_ERROR(path, c.get_int("as_text"), "key 'as_text' is \"4096\", expected an integer");
  EXPECT_FILE_ERROR(path, c.get_int("as_float"), "key 'as_float' is 4096.0, expected an integer");
  EXPECT_FILE_ERROR(path, c.get_int("too_big"), "key 'too_big'", "fits in 64 signed bits");
  EXPECT_FILE_ERROR(path, c.get_int("invert_sigmas"), "key 'invert_sigmas' is true, expected an integer");
  EXPECT_FILE_ERROR(path, c.get_int("shift_terminal"), "key 'shift_terminal' is null, expected an integer");
  EXPECT_FILE_ERROR(path, c.get_int_or("as_text", 1), "key 'as_text'", "expected an integer");
  EXPECT_FILE_ERROR(path, c.get_float("as_text"), "key 'as_text'", "expected a number");
  EXPECT_FILE_ERROR(path, c.get_float_or("upsampling_ratios", 1.0), "key 'upsampling_ratios' is [8,8,4,2]",
                    "expected a number");
  EXPECT_FILE_ERROR(path, c.get_string("hidden_size"), "key 'hidden_size' is 4096, expected a string");
  EXPECT_FILE_ERROR(path, c.get_bool("num_layers"), "key 'num_layers' is 4, expected a boolean");
}

TEST_F(ComponentConfigTest, NotJson) {
  write_bytes(path, "hidden_size = 4096\n");
  EXPECT_FILE_ERROR(path, ComponentConfig{path}, "config is not valid JSON", "parse error");
  write_bytes(path, R"({"hidden_size": 4096,)");
  EXPECT_FILE_ERROR(path, ComponentConfig{path}, "config is not valid JSON");
  write_bytes(path, "");
  EXPECT_FILE_ERROR(path, ComponentConfig{path}, "config is not valid JSON");
}

TEST_F(ComponentConfigTest, NotAnObject) {
  write_bytes(path, "[4096, 4]");
  EXPECT_FILE_ERROR(path, ComponentConfig{path}, "config is a JSON array, expected an object");
}

TEST_F(ComponentConfigTest, MissingFileOrDirectory) {
  const std::string absent = dir.file("absent.json");
  EXPECT_FILE_ERROR(absent, ComponentConfig{absent}, "cannot open config", "No such file");
  const std::string folder = dir.dir().string();
  EXPECT_FILE_ERROR(folder, ComponentConfig{folder}, "not a regular file");
}

}  // namespace
}  // namespace music3::io

// ONNX external data (src/onnx/external_data.h): weights read from a file
// beside the model, and every way a hostile model could point outside it
// refused with the tensor's name.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "model_builder.h"
#include "onnx/model.h"

namespace {

namespace fs = std::filesystem;
using namespace openhtp::onnx_import;

class ExternalData : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("openhtp_external_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    // 16 floats of filler, then w's 6 values, then 2 more floats.
    std::vector<float> file(24);
    for (size_t i = 0; i < file.size(); ++i) file[i] = 100.0f + static_cast<float>(i);
    for (size_t i = 0; i < 6; ++i) file[16 + i] = 0.5f * static_cast<float>(i) - 1.0f;
    std::ofstream(dir_ / "w.bin", std::ios::binary)
        .write(reinterpret_cast<const char*>(file.data()), static_cast<std::streamsize>(file.size() * 4));
  }
  void TearDown() override { fs::remove_all(dir_); }

  // y = x + w, w [2,3] external at `offset` with `length` ("" = no key).
  void write_model(const std::string& location, const std::string& offset, const std::string& length) {
    onnx_test::ModelBuilder b;
    b.input("x", {2, 3}).output("y", {2, 3});
    b.node("Add", "add", {"x", "w"}, {"y"});
    onnx::ModelProto m = b.model();
    onnx::TensorProto* w = m.mutable_graph()->add_initializer();
    w->set_name("w");
    w->set_data_type(onnx::TensorProto::FLOAT);
    w->add_dims(2);
    w->add_dims(3);
    w->set_data_location(onnx::TensorProto::EXTERNAL);
    for (auto [k, v] : {std::pair<std::string, std::string>{"location", location}, {"offset", offset},
                        {"length", length}}) {
      if (v.empty()) continue;
      auto* e = w->add_external_data();
      e->set_key(k);
      e->set_value(v);
    }
    std::ofstream f(dir_ / "model.onnx", std::ios::binary);
    ASSERT_TRUE(m.SerializeToOstream(&f));
  }

  bool load(onnx::ModelProto* m, std::string* error) {
    return load_model_file((dir_ / "model.onnx").string(), m, error);
  }

  fs::path dir_;
};

TEST_F(ExternalData, WeightsAreReadFromTheirOffset) {
  write_model("w.bin", "64", "24");
  onnx::ModelProto m;
  std::string error;
  ASSERT_TRUE(load(&m, &error)) << error;
  Model model;
  ASSERT_TRUE(model_from_proto(m, &model, &error)) << error;
  const Tensor* w = model.constant("w");
  ASSERT_NE(w, nullptr);
  for (size_t i = 0; i < 6; ++i) EXPECT_EQ(w->get(i), 0.5 * static_cast<double>(i) - 1.0) << i;
}

TEST_F(ExternalData, LengthMayBeLeftOut) {
  write_model("w.bin", "64", "");
  onnx::ModelProto m;
  std::string error;
  ASSERT_TRUE(load(&m, &error)) << error;
  EXPECT_EQ(m.graph().initializer(0).raw_data().size(), 24u);
}

TEST_F(ExternalData, ARangeBeyondTheFileIsRefused) {
  write_model("w.bin", "80", "24");  // 80 + 24 > 96 bytes
  onnx::ModelProto m;
  std::string error;
  EXPECT_FALSE(load(&m, &error));
  EXPECT_NE(error.find("tensor 'w'"), std::string::npos) << error;
  EXPECT_NE(error.find("lies outside"), std::string::npos) << error;
}

TEST_F(ExternalData, AHugeOffsetIsRefused) {
  write_model("w.bin", "18446744073709551600", "24");
  onnx::ModelProto m;
  std::string error;
  EXPECT_FALSE(load(&m, &error));
  EXPECT_NE(error.find("lies outside"), std::string::npos) << error;
}

TEST_F(ExternalData, ALengthThatIsNotTheTensorsIsRefused) {
  write_model("w.bin", "0", "20");
  onnx::ModelProto m;
  std::string error;
  EXPECT_FALSE(load(&m, &error));
  EXPECT_NE(error.find("not the tensor's 24 bytes"), std::string::npos) << error;
}

TEST_F(ExternalData, PathsOutsideTheModelsFolderAreRefused) {
  for (const char* where : {"../w.bin", "/etc/passwd", "sub/../../w.bin", ""}) {
    write_model(where, "0", "24");
    onnx::ModelProto m;
    std::string error;
    EXPECT_FALSE(load(&m, &error)) << where;
    EXPECT_NE(error.find("relative path inside the model's folder"), std::string::npos) << where << ": " << error;
  }
}

TEST_F(ExternalData, AMissingFileIsNamed) {
  write_model("absent.bin", "0", "24");
  onnx::ModelProto m;
  std::string error;
  EXPECT_FALSE(load(&m, &error));
  EXPECT_NE(error.find("absent.bin"), std::string::npos) << error;
  EXPECT_NE(error.find("cannot be opened"), std::string::npos) << error;
}

TEST_F(ExternalData, ANonNumericOffsetIsRefused) {
  write_model("w.bin", "12abc", "24");
  onnx::ModelProto m;
  std::string error;
  EXPECT_FALSE(load(&m, &error));
  EXPECT_NE(error.find("is not a number"), std::string::npos) << error;
}

}  // namespace

// The tools' tests run each tool in a directory of its own: a fresh
// <temp>/<prefix>_<pid>_<test name> per test, removed after it (or kept
// after a failure, to look at what the tool wrote).
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <system_error>

class ScratchDirTest : public ::testing::Test {
 protected:
  explicit ScratchDirTest(std::string prefix, bool keep_after_failure = false)
      : prefix_(std::move(prefix)), keep_after_failure_(keep_after_failure) {}

  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           (prefix_ + "_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    if (!(keep_after_failure_ && HasFailure())) std::filesystem::remove_all(dir_, ec);
  }

  std::filesystem::path dir_;

 private:
  std::string prefix_;
  bool keep_after_failure_;
};

// SPDX-License-Identifier: GPL-3.0-or-later
// A `stackscope-cli search --out DIR` killed with SIGKILL at random
// moments and resumed each time ends at the frontier of an uninterrupted run, point for point.
// The real executable runs in a child process (a kill must not be caught or cleaned up after).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace {

namespace fs = std::filesystem;

// 38,880 points (the CLI tests' small space times four core clocks); with bound pruning off and
// one thread a whole run is about 1.5 s, so kills within [0.1, 1.2] s land at every stage.
const fs::path kProject = fs::path(STACKSCOPE_SOURCE_DIR) / "tests/data/search/kill-space.json";
constexpr int kCycles = 20;
constexpr std::uint64_t kSeed = 12;  // of the kill delays: a failure can be replayed

struct Child {
  pid_t pid = -1;
};

Child spawn(const std::vector<std::string>& args, const fs::path& out, const fs::path& err) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  Child c;
  const int rc = posix_spawn(&c.pid, argv[0], &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) c.pid = -1;
  return c;
}

// Exit code, or 128 + signal.
int wait_for(const Child& c) {
  int status = 0;
  if (::waitpid(c.pid, &status, 0) != c.pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// Polls `ready` every 5 ms until it holds or `limit` has passed (then the caller goes on anyway:
// a signal sent too early shows as a failure of what follows, never as a hang).
template <class Ready>
void wait_until(Ready ready, std::chrono::seconds limit) {
  const auto t0 = std::chrono::steady_clock::now();
  while (!ready() && std::chrono::steady_clock::now() - t0 < limit)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// (hw, inner, objectives) of frontier.json, in its canonical order.
std::vector<std::string> frontier(const fs::path& dir) {
  std::vector<std::string> v;
  const auto j = nlohmann::json::parse(read_file(dir / "frontier.json"));
  for (const auto& p : j["points"])
    v.push_back(std::to_string(p["hw"].get<std::uint64_t>()) + "/" +
                std::to_string(p["inner"].get<std::uint64_t>()) + " " + p["objectives"].dump());
  return v;
}

std::vector<std::string> search_args(const fs::path& dir, bool resume) {
  std::vector<std::string> a = {
      STACKSCOPE_CLI, "search", kProject.string(), "--out", dir.string(),
      "--threads",    "1",      "--log",           "all",   "--no-bound-pruning"};
  if (resume) a.emplace_back("--resume");
  return a;
}

TEST(SearchKill, RandomSigkillsThenResumeGiveTheUninterruptedFrontier) {
  const fs::path work =
      fs::temp_directory_path() / ("stackscope_kill_" + std::to_string(::getpid()));
  fs::remove_all(work);
  fs::create_directories(work);

  const Child ref =
      spawn(search_args(work / "reference", false), work / "ref.out", work / "ref.err");
  ASSERT_GT(ref.pid, 0);
  ASSERT_EQ(wait_for(ref), 0) << read_file(work / "ref.err");
  const auto reference = frontier(work / "reference");
  ASSERT_FALSE(reference.empty());

  std::mt19937_64 rng(kSeed);
  std::uniform_int_distribution<int> delay_ms(100, 1200);
  const fs::path dir = work / "killed";
  int killed = 0, finished_early = 0;
  std::uint64_t last_done = 0;
  const std::regex resuming("resuming: ([0-9]+) finished work units");
  for (int cycle = 0; cycle < kCycles; ++cycle) {
    SCOPED_TRACE("cycle " + std::to_string(cycle));
    const fs::path out = work / ("cycle" + std::to_string(cycle) + ".out");
    const fs::path err = work / ("cycle" + std::to_string(cycle) + ".err");
    const Child c = spawn(search_args(dir, cycle > 0), out, err);
    ASSERT_GT(c.pid, 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms(rng)));
    ::kill(c.pid, SIGKILL);
    const int rc = wait_for(c);
    const std::string e = read_file(err);
    if (rc == 128 + SIGKILL) {
      ++killed;
    } else {
      ASSERT_EQ(rc, 0) << e;  // finished before the kill
      ++finished_early;
    }
    // Finished work never goes back: each resume starts at least where the previous one did.
    std::smatch m;
    if (cycle > 0 && std::regex_search(e, m, resuming)) {
      const auto done = std::stoull(m[1].str());
      EXPECT_GE(done, last_done) << e;
      last_done = done;
    }
  }
  const Child fin = spawn(search_args(dir, true), work / "final.out", work / "final.err");
  ASSERT_GT(fin.pid, 0);
  ASSERT_EQ(wait_for(fin), 0) << read_file(work / "final.err");
  EXPECT_NE(read_file(work / "final.out").find("complete: the frontier is exact"),
            std::string::npos);
  EXPECT_EQ(frontier(dir), reference);
  // Most cycles must really have been killed mid-run, or the test proves nothing.
  EXPECT_GE(killed, kCycles / 2) << killed << " killed, " << finished_early << " finished first";
  std::cout << "kill/resume: " << kCycles << " cycles, " << killed << " killed mid-run, "
            << finished_early << " finished before the kill, frontier " << reference.size()
            << " points, equal\n";
  fs::remove_all(work);
}

// Ctrl-C (SIGINT) stops a search through its stop token: exit 130, the partial frontier written,
// the log consistent and the resume command printed; resumed, the run ends at the frontier of an
// uninterrupted one. (Without a handler SIGINT ended the process wherever it was.)
TEST(SearchInterrupt, CtrlCStopsWithExit130AndTheRunResumesToTheSameFrontier) {
  const fs::path work =
      fs::temp_directory_path() / ("stackscope_sigint_" + std::to_string(::getpid()));
  fs::remove_all(work);
  fs::create_directories(work);
  const Child ref =
      spawn(search_args(work / "reference", false), work / "ref.out", work / "ref.err");
  ASSERT_GT(ref.pid, 0);
  ASSERT_EQ(wait_for(ref), 0) << read_file(work / "ref.err");

  const fs::path dir = work / "interrupted";
  const Child c = spawn(search_args(dir, false), work / "int.out", work / "int.err");
  ASSERT_GT(c.pid, 0);
  // Signal once the log exists (the handler is installed before it is opened), or after 20 s:
  // a fixed delay raced the start-up of a slow (sanitizer) build, whose SIGINT then came first.
  wait_until([&] { return fs::exists(dir / "points.jsonl"); }, std::chrono::seconds(20));
  ::kill(c.pid, SIGINT);
  const int rc = wait_for(c);
  const std::string err = read_file(work / "int.err");
  if (rc == 0) GTEST_SKIP() << "the search finished before the signal";
  ASSERT_EQ(rc, 130) << err;
  EXPECT_NE(read_file(work / "int.out").find("status       stopped"), std::string::npos);
  EXPECT_NE(err.find("interrupted: the log in " + dir.string() + " is consistent"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("stackscope-cli search " + kProject.string() + " --out " + dir.string() +
                     " --threads 1 --log all --no-bound-pruning --resume"),
            std::string::npos)
      << err;
  EXPECT_TRUE(fs::exists(dir / "frontier.json"));
  const Child fin = spawn(search_args(dir, true), work / "fin.out", work / "fin.err");
  ASSERT_GT(fin.pid, 0);
  ASSERT_EQ(wait_for(fin), 0) << read_file(work / "fin.err");
  EXPECT_NE(read_file(work / "fin.err").find("resuming: "), std::string::npos);
  EXPECT_EQ(frontier(dir), frontier(work / "reference"));
  fs::remove_all(work);
}

// The same for a co-exploration (the shipped wafer project, points of about a second): the point
// in progress is cut short and not recorded, the finished ones resume.
TEST(SearchInterrupt, CtrlCStopsACoExplorationWhoseLogThenResumes) {
  const fs::path work =
      fs::temp_directory_path() / ("stackscope_sigint_cx_" + std::to_string(::getpid()));
  fs::remove_all(work);
  fs::create_directories(work);
  const std::string project =
      (fs::path(STACKSCOPE_SOURCE_DIR) / "presets/projects/llama-3-70b-wafer-coexplore.json")
          .string();
  const fs::path dir = work / "out";
  const std::vector<std::string> args = {STACKSCOPE_CLI, "search",    project, "--out",
                                         dir.string(),   "--threads", "2"};
  const Child c = spawn(args, work / "c.out", work / "c.err");
  ASSERT_GT(c.pid, 0);
  // Signal once a point or two are logged (header + points), or after 20 s.
  auto lines = [&] {
    const std::string log = read_file(dir / "coexplore.jsonl");
    return std::count(log.begin(), log.end(), '\n');
  };
  wait_until([&] { return lines() >= 3; }, std::chrono::seconds(20));
  ::kill(c.pid, SIGINT);
  const auto t1 = std::chrono::steady_clock::now();
  const int rc = wait_for(c);
  const double stop_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
  const std::string err = read_file(work / "c.err");
  ASSERT_EQ(rc, 130) << err;
  EXPECT_LT(stop_s, 10.0);  // the point in progress is cut short, not run to its end
  EXPECT_NE(err.find("continue with:\n  stackscope-cli search " + project + " --out " +
                     dir.string() + " --threads 2 --resume"),
            std::string::npos)
      << err;
  const auto logged = lines() - 1;  // the header line
  EXPECT_GE(logged, 1);
  std::vector<std::string> again = args;
  again.insert(again.end(), {"--resume", "--max-points", "1"});
  const Child r = spawn(again, work / "r.out", work / "r.err");
  ASSERT_GT(r.pid, 0);
  ASSERT_EQ(wait_for(r), 0) << read_file(work / "r.err");
  EXPECT_NE(read_file(work / "r.err").find("resuming: " + std::to_string(logged) + " points done"),
            std::string::npos)
      << read_file(work / "r.err");
  fs::remove_all(work);
}

}  // namespace

// Copy routines (every alignment of head and tail, each kind), the reduction kernels' aliasing rules, and
// the HPDC'13 cost model (selection, file round trip, bad files named).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "proxy/collective_model.hpp"
#include "proxy/copy.hpp"
#include "proxy/error.hpp"
#include "proxy/reduction.hpp"
#include "team_test_support.hpp"

namespace {

using namespace proxy;

TEST(Copy, StreamingIsExactForEveryAlignmentAndSize) {
  std::vector<unsigned char> source(3 << 20), destination(3 << 20);
  for (std::size_t i = 0; i < source.size(); ++i) source[i] = static_cast<unsigned char>(i * 131 + (i >> 9));
  for (std::size_t bytes : {std::size_t{0}, std::size_t{1}, std::size_t{63}, std::size_t{64}, std::size_t{65},
                            std::size_t{1000}, std::size_t{4096 + 17}, (std::size_t{1} << 20) + 3})
    for (std::size_t src_offset : {0, 1, 13, 32, 63})
      for (std::size_t dst_offset : {0, 5, 31, 48, 63}) {
        // (only the copy's span and a byte either side: the rest is never written, and a whole 3 MiB fill
        // per case made this the slowest test of the ThreadSanitizer run)
        std::fill(destination.begin(), destination.begin() + static_cast<std::ptrdiff_t>(dst_offset + bytes + 1), 0xee);
        copy_streaming(destination.data() + dst_offset, source.data() + src_offset, bytes);
        ASSERT_EQ(0, std::memcmp(destination.data() + dst_offset, source.data() + src_offset, bytes))
            << bytes << " bytes, offsets " << src_offset << "/" << dst_offset << " (" << streaming_isa() << ")";
        ASSERT_EQ(destination[dst_offset + bytes], 0xee) << "wrote past the end";
        if (dst_offset > 0) ASSERT_EQ(destination[dst_offset - 1], 0xee) << "wrote before the start";
      }
}

TEST(Copy, EveryKindCopiesExactly) {
  std::vector<unsigned char> source(200003), destination(200003);
  for (std::size_t i = 0; i < source.size(); ++i) source[i] = static_cast<unsigned char>(i * 7 + 3);
  for (auto kind : {CopyKind::automatic, CopyKind::memcpy, CopyKind::streaming}) {
    std::fill(destination.begin(), destination.end(), 0);
    copy(destination.data() + 1, source.data() + 3, source.size() - 3, kind);
    ASSERT_EQ(0, std::memcmp(destination.data() + 1, source.data() + 3, source.size() - 3)) << to_string(kind);
  }
}

TEST(Copy, PolicyStreamsOnlyLargeBuffersAndLaterWhenCacheIsShared) {
  CopyPolicy policy;
  policy.streaming_threshold = 1 << 20;
  policy.shared_cache_bytes = 32 << 20;
  policy.share_cache = false;
  EXPECT_EQ(policy.choose(4096), CopyKind::memcpy);
  EXPECT_EQ(policy.choose(2 << 20), CopyKind::streaming);
  policy.share_cache = true;
  EXPECT_EQ(policy.choose(2 << 20), CopyKind::memcpy);
  EXPECT_EQ(policy.choose(64 << 20), CopyKind::streaming);
  const std::string isa(streaming_isa());
  EXPECT_TRUE(isa == "avx512" || isa == "avx2" || isa == "sse2") << isa;
}

TEST(Reduction, CombineHandlesEveryAliasingForNonCommutativeUserOps) {
  using namespace proxy::testing;
  const auto r = noncommutative();
  const std::size_t n = 3000;  // more than one bounce buffer of int64
  std::vector<std::int64_t> a(n), b(n), expected(n);
  for (std::size_t i = 0; i < n; ++i) {
    a[i] = affine(3 + i % 7, i % 13);
    b[i] = affine(5 + i % 3, 1 + i % 17);
    expected[i] = compose(a[i], b[i]);
  }
  std::vector<std::int64_t> out(n);
  combine(r, a.data(), b.data(), out.data(), n);
  EXPECT_EQ(out, expected) << "separate output";
  auto left = a;
  combine(r, left.data(), b.data(), left.data(), n);
  EXPECT_EQ(left, expected) << "output aliases the left operand";
  auto right = b;
  combine(r, a.data(), right.data(), right.data(), n);
  EXPECT_EQ(right, expected) << "output aliases the right operand";
}

TEST(Reduction, IntegerOverflowWrapsAndParsersNameBadValues) {
  const std::int32_t big[1] = {std::numeric_limits<std::int32_t>::max()}, one[1] = {1};
  std::int32_t out[1];
  combine(Reduction::builtin(DataType::int32, ReduceOp::sum), big, one, out, 1);
  EXPECT_EQ(out[0], std::numeric_limits<std::int32_t>::min());
  EXPECT_EQ(parse_data_type("double"), DataType::float64);
  EXPECT_EQ(parse_reduce_op("max"), ReduceOp::max);
  try {
    parse_data_type("complex");
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "unknown data type 'complex' (expected float, double, int32 or int64)");
  }
}

TEST(CollectiveModel, TreeForShortVectorsTiledForLongOnes) {
  // HPDC'13 sec. 3.4: the tree wins on latency, tiled reduce-broadcast on bandwidth; the crossover lies
  // between (16 KiB on their Westmere).
  const CollectiveModel model;
  const TeamShape shape{8, 1};
  const auto small = model.choose_allreduce(shape, 8);
  EXPECT_TRUE(small == AllreduceAlgorithm::tree_one_stage || small == AllreduceAlgorithm::dissemination)
      << to_string(small);
  const auto large = model.choose_allreduce(shape, 16 << 20);
  EXPECT_TRUE(large == AllreduceAlgorithm::tiled_one_stage || large == AllreduceAlgorithm::tiled_two_stage)
      << to_string(large);
  for (auto a : allreduce_algorithms())
    EXPECT_LT(model.predict(a, shape, 1024), model.predict(a, shape, 1 << 20)) << to_string(a);
  EXPECT_EQ(model.predict(AllreduceAlgorithm::tree_one_stage, {1, 1}, 4096), 0.0) << "one thread: nothing to do";
}

// save() renames a temporary onto the model: through a symbolic link it replaced the link by a regular file
// (what calibrate --output wrote no longer reached the link's target), and the temporary's name, the model's
// plus ".tmp-PID", was too long for a legal 255-byte model name (ENAMETOOLONG after calibrate's measurements).
TEST(CollectiveModel, SaveWritesThroughALinkAndTakesAFullLengthName) {
  const std::string dir = ::testing::TempDir() + "proxy-model-links-" + std::to_string(::getpid());
  ASSERT_EQ(::mkdir(dir.c_str(), 0700), 0) << dir;
  const auto is_link = [](const std::string& path) {
    struct stat info{};
    return ::lstat(path.c_str(), &info) == 0 && S_ISLNK(info.st_mode);
  };
  ModelParameters parameters;
  parameters.a_alpha = 4.5e-7;
  // A link to a model not there yet (relative, beside it), then the same link again onto the existing model.
  ASSERT_EQ(::symlink("kept.model", (dir + "/link.model").c_str()), 0);
  for (const double a_alpha : {4.5e-7, 5.5e-7}) {
    parameters.a_alpha = a_alpha;
    CollectiveModel(parameters).save(dir + "/link.model");
    EXPECT_TRUE(is_link(dir + "/link.model")) << "the link was replaced by a file";
    EXPECT_DOUBLE_EQ(CollectiveModel::load(dir + "/kept.model").parameters().a_alpha, a_alpha);
  }
  const std::string longest = dir + "/" + std::string(255, 'm');
  CollectiveModel(parameters).save(longest);
  EXPECT_DOUBLE_EQ(CollectiveModel::load(longest).parameters().a_alpha, 5.5e-7);
  std::vector<std::string> left;
  for (const char* name : {"link.model", "kept.model"}) left.push_back(dir + "/" + name);
  left.push_back(longest);
  for (const auto& path : left) EXPECT_EQ(::unlink(path.c_str()), 0) << path;
  EXPECT_EQ(::rmdir(dir.c_str()), 0) << "a temporary file was left in " << dir;
}

TEST(CollectiveModel, FileRoundTripAndBadLinesNamed) {
  ModelParameters parameters;
  parameters.a_alpha = 3.5e-7;
  parameters.B_beta = 1.25e-9;
  // One file per process: collectives.unit and collectives.unit.quick run this test at the same time under
  // ctest -j (a shared name let one remove the file while the other read it).
  const std::string path = ::testing::TempDir() + "proxy-model-test-" + std::to_string(::getpid()) + ".txt";
  CollectiveModel(parameters).save(path);
  const auto loaded = CollectiveModel::load(path);
  EXPECT_DOUBLE_EQ(loaded.parameters().a_alpha, 3.5e-7);
  EXPECT_DOUBLE_EQ(loaded.parameters().B_beta, 1.25e-9);
  EXPECT_DOUBLE_EQ(loaded.parameters().b_alpha, parameters.b_alpha);
  {
    std::ofstream bad(path);
    bad << "# comment\na_alpha 1e-7\nlatency fast\n";
  }
  try {
    CollectiveModel::load(path);
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), ("collective model file '" + path +
                            "' line 3: bad entry 'latency fast' (expected '<a_alpha|b_alpha|B_alpha|a_beta|b_beta|"
                            "B_beta> <seconds >= 0>', 'shape <threads> <sockets>' or 'curve <algorithm> <bytes> "
                            "<seconds>')").c_str());
  }
  {
    std::ofstream only_comments(path);
    only_comments << "# proxy collective model\n\n";
  }
  try {
    CollectiveModel::load(path);
    FAIL() << "a file without entries passed for the defaults";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), ("collective model file '" + path +
                            "' has no entries (expected lines '<name> <seconds >= 0>', as calibrate writes them)")
                               .c_str());
  }
  std::remove(path.c_str());
  try {
    CollectiveModel::load(::testing::TempDir());
    FAIL() << "a directory passed for a model file";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), ("collective model file '" + ::testing::TempDir() + "' is not a regular file").c_str());
  }
  // A pipe is refused before it is opened: opening it to read waited for a writer, for ever.
  const std::string pipe = ::testing::TempDir() + "model-pipe-" + std::to_string(::getpid());
  ASSERT_EQ(::mkfifo(pipe.c_str(), 0600), 0);
  try {
    CollectiveModel::load(pipe);
    FAIL() << "a pipe passed for a model file";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), ("collective model file '" + pipe + "' is not a regular file").c_str());
  }
  ::unlink(pipe.c_str());
  // A file far bigger than any model (a sparse one here) is refused by its size, unread: a file without newlines
  // was read as one line until memory ran out.
  const std::string huge = ::testing::TempDir() + "model-huge-" + std::to_string(::getpid());
  std::ofstream(huge).close();
  ASSERT_EQ(::truncate(huge.c_str(), 20LL << 30), 0);
  try {
    CollectiveModel::load(huge);
    FAIL() << "a 20 GiB file passed for a model file";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), ("collective model file '" + huge + "' is 21474836480 bytes, more than a model can be "
                            "(1048576 bytes at most)").c_str());
  }
  std::remove(huge.c_str());
  try {
    CollectiveModel::load("/nonexistent/model");
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "cannot read collective model file '/nonexistent/model'");
  }
  EXPECT_EQ(parse_allreduce_algorithm("tiled-two-stage"), AllreduceAlgorithm::tiled_two_stage);
  EXPECT_THROW(parse_allreduce_algorithm("ring"), Error);
  for (const BroadcastAlgorithm b :
       {BroadcastAlgorithm::automatic, BroadcastAlgorithm::one_stage, BroadcastAlgorithm::two_stage})
    EXPECT_EQ(parse_broadcast_algorithm(to_string(b)), b) << to_string(b);
  try {
    parse_broadcast_algorithm("pipeline");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("unknown broadcast algorithm 'pipeline' (expected ", 0), 0u) << e.what();
  }
}

// The serial reference folds left to right: with the tests' non-commutative operation (composition of
// affine maps, team_test_support.hpp) the order shows in the result.
TEST(Reduction, ReferenceFoldsLeftToRight) {
  using proxy::testing::affine;
  const std::int64_t x[1] = {affine(2, 1)}, y[1] = {affine(3, 5)}, z[1] = {affine(5, 7)};
  const void* inputs[3] = {x, y, z};
  std::int64_t out[1] = {};
  reduce_reference(proxy::testing::noncommutative(), inputs, 3, out, 1);
  // (x o y) o z: 2 (3 (5 t + 7) + 5) + 1 = 30 t + 53; z o (y o x) would be 30 t + 47.
  EXPECT_EQ(out[0], affine(30, 53));
  const std::int32_t p[3] = {1, -2, 3}, q[3] = {10, 20, 30};
  const void* ints[2] = {p, q};
  std::int32_t sum[3] = {};
  reduce_reference(Reduction::builtin(DataType::int32, ReduceOp::sum), ints, 2, sum, 3);
  EXPECT_EQ(std::vector<std::int32_t>(sum, sum + 3), (std::vector<std::int32_t>{11, 18, 33}));
}

// A 16-thread node of two NUMA domains, with given parameters: every prediction is the HPDC'13 equation
// for p = 16, s = 2, q = 8 (binary tree), written out here from the paper, and the choice is the cheapest.
TEST(CollectiveModel, SixteenThreadsOnTwoDomainsFollowTheEquations) {
  ModelParameters c;
  c.a_alpha = 1.0e-7, c.b_alpha = 1.0e-10, c.B_alpha = 4.0e-11;
  c.a_beta = 2.5e-7, c.b_beta = 2.0e-10, c.B_beta = 1.2e-10;
  const CollectiveModel model(c);
  const TeamShape node{16, 2};
  for (const double m : {8.0, 4096.0, 262144.0, 16777216.0}) {
    // eq. (1)-(3): levels i = 0, 1, 2 of the socket's tree have 4, 2, 1 combines sharing the link.
    double reduce = 0.0;
    for (const double concurrent : {4.0, 2.0, 1.0})
      reduce += std::max(c.a_alpha + c.b_alpha * m, c.a_alpha + c.B_alpha * concurrent * m);
    reduce += c.a_beta + c.b_beta * m;
    const double one_stage = c.a_beta + c.B_beta * 8 * m;                                       // eq. (4)
    const double two_stage = c.a_alpha + c.B_alpha * 7 * m + c.a_beta + c.b_beta * m;           // eq. (4)
    const double dissemination = (c.a_alpha + c.B_alpha * 8 * m) * 3 + (c.a_beta + c.B_beta * 8 * m);  // eq. (6)
    const double tiled = c.a_alpha * 8 + c.B_alpha * 8 * m + (c.a_beta + c.B_beta * m);          // eq. (10)
    const std::pair<AllreduceAlgorithm, double> expected[] = {
        {AllreduceAlgorithm::tree_one_stage, reduce + one_stage},    // eq. (5)
        {AllreduceAlgorithm::tree_two_stage, reduce + two_stage},
        {AllreduceAlgorithm::dissemination, dissemination},
        {AllreduceAlgorithm::tiled_one_stage, tiled + one_stage},    // eq. (11)
        {AllreduceAlgorithm::tiled_two_stage, tiled + two_stage}};
    AllreduceAlgorithm cheapest = expected[0].first;
    double cheapest_time = expected[0].second;
    for (const auto& [algorithm, time] : expected) {
      EXPECT_NEAR(model.predict(algorithm, node, static_cast<std::size_t>(m)), time, time * 1e-12)
          << to_string(algorithm) << " at " << m << " bytes";
      if (time < cheapest_time) cheapest = algorithm, cheapest_time = time;
    }
    EXPECT_EQ(model.choose_allreduce(node, static_cast<std::size_t>(m)), cheapest) << m << " bytes";
  }
  // As the paper found on its two-socket Westmere: dissemination for short vectors, tiled for long ones.
  EXPECT_EQ(model.choose_allreduce(node, 8), AllreduceAlgorithm::dissemination);
  const AllreduceAlgorithm large = model.choose_allreduce(node, 16 << 20);
  EXPECT_TRUE(large == AllreduceAlgorithm::tiled_one_stage || large == AllreduceAlgorithm::tiled_two_stage)
      << to_string(large);
}

// The curves calibrate measures decide on the shape they were measured on, and only there.
TEST(CollectiveModel, MeasuredCurvesDecideOnTheirShape) {
  const TeamShape pair{2, 1};
  std::vector<MeasuredCurve> curves = {
      {AllreduceAlgorithm::dissemination, {{8, 1.0e-6}, {1024, 2.0e-6}, {4096, 8.0e-6}}},
      {AllreduceAlgorithm::tiled_one_stage, {{8, 3.0e-6}, {1024, 4.0e-6}, {4096, 5.0e-6}}}};
  const CollectiveModel model(ModelParameters{}, pair, curves);
  EXPECT_DOUBLE_EQ(model.predict(AllreduceAlgorithm::dissemination, pair, 8), 1.0e-6);
  EXPECT_DOUBLE_EQ(model.predict(AllreduceAlgorithm::dissemination, pair, 4), 1.0e-6) << "below the first point";
  EXPECT_DOUBLE_EQ(model.predict(AllreduceAlgorithm::dissemination, pair, 516), 1.5e-6) << "halfway";
  EXPECT_DOUBLE_EQ(model.predict(AllreduceAlgorithm::dissemination, pair, 8192), 16.0e-6) << "past the end";
  EXPECT_EQ(model.choose_allreduce(pair, 8), AllreduceAlgorithm::dissemination);
  EXPECT_EQ(model.choose_allreduce(pair, 4096), AllreduceAlgorithm::tiled_one_stage);
  // An algorithm without a curve (not chosen on this shape), and every other shape, keep the formulas.
  EXPECT_DOUBLE_EQ(model.predict(AllreduceAlgorithm::tree_one_stage, pair, 4096),
                   model.formula(AllreduceAlgorithm::tree_one_stage, pair, 4096));
  EXPECT_DOUBLE_EQ(model.predict(AllreduceAlgorithm::dissemination, {4, 1}, 4096),
                   model.formula(AllreduceAlgorithm::dissemination, {4, 1}, 4096));

  const std::string path = ::testing::TempDir() + "proxy-curves-test-" + std::to_string(::getpid()) + ".txt";
  model.save(path);
  const CollectiveModel loaded = CollectiveModel::load(path);
  EXPECT_EQ(loaded.measured_shape(), pair);
  ASSERT_EQ(loaded.curves().size(), 2u);
  EXPECT_EQ(loaded.curves()[1].algorithm, AllreduceAlgorithm::tiled_one_stage);
  EXPECT_EQ(loaded.curves()[1].points, curves[1].points);
  const std::pair<const char*, const char*> refused[] = {
      {"curve dissemination 8 1e-6\n", "line 1: bad entry 'curve dissemination 8 1e-6' (a curve needs a 'shape' line before it)"},
      {"shape 2 1\ncurve ring 8 1e-6\n", "line 2: bad entry 'curve ring 8 1e-6' (unknown allreduce algorithm 'ring')"},
      {"shape 2 1\ncurve tree-one-stage 64 1e-6\ncurve tree-one-stage 8 1e-6\n",
       "line 3: bad entry 'curve tree-one-stage 8 1e-6' (sizes of a curve must increase)"},
      {"shape 2 1\ncurve tree-one-stage 64 -1\n",
       "line 2: bad entry 'curve tree-one-stage 64 -1' (expected 'curve <algorithm> <bytes >= 1> <seconds > 0>')"},
      {"shape 1 1\n", "line 1: bad entry 'shape 1 1' (expected 'shape <threads >= 2> <sockets, 1 to threads>')"},
      // A binary file's bytes are named, not echoed to the terminal.
      {"shape 2 1\n\x01\x9e\x1b[2J\n", "line 2: not text (byte 1): is it a model?"}};
  for (const auto& [text, message] : refused) {
    { std::ofstream(path) << text; }
    try {
      CollectiveModel::load(path);
      ADD_FAILURE() << "accepted: " << text;
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), "collective model file '" + path + "' " + message);
    }
  }
  std::remove(path.c_str());
  EXPECT_THROW(CollectiveModel(ModelParameters{}, pair, {{AllreduceAlgorithm::dissemination, {{64, 1e-6}, {8, 2e-6}}}}),
               Error);
}

// On one socket a two-stage broadcast is the one-stage one (team_broadcast.cpp): the two-stage allreduce
// algorithms are the same code as their one-stage twins, so calibrate measures and the model chooses among the
// three that differ. A twin's curve (a file written before) is not a candidate, and a twin is predicted as its
// one-stage algorithm; on two sockets all five differ.
TEST(CollectiveModel, OnOneSocketTheTwoStageAlgorithmsAreTheirOneStageTwins) {
  using A = AllreduceAlgorithm;
  const TeamShape pair{2, 1}, node{16, 2};
  EXPECT_EQ(distinct_allreduce_algorithms(pair),
            (std::vector<A>{A::tree_one_stage, A::dissemination, A::tiled_one_stage}));
  EXPECT_EQ(distinct_allreduce_algorithms(node), allreduce_algorithms());
  EXPECT_EQ(as_run(A::tree_two_stage, pair), A::tree_one_stage);
  EXPECT_EQ(as_run(A::tiled_two_stage, pair), A::tiled_one_stage);
  EXPECT_EQ(as_run(A::tiled_two_stage, node), A::tiled_two_stage);
  EXPECT_EQ(as_run(A::automatic, pair), A::automatic);

  const std::vector<MeasuredCurve> curves = {
      {A::tree_one_stage, {{8, 2.0e-6}, {4096, 9.0e-6}}},
      {A::tree_two_stage, {{8, 1.0e-6}, {4096, 7.0e-6}}},  // the twin measured faster: noise
      {A::tiled_one_stage, {{8, 3.0e-6}, {4096, 8.0e-6}}},
      {A::tiled_two_stage, {{8, 3.0e-6}, {4096, 6.0e-6}}}};
  const CollectiveModel model(ModelParameters{}, pair, curves);
  EXPECT_EQ(model.choose_allreduce(pair, 8), A::tree_one_stage);
  EXPECT_EQ(model.choose_allreduce(pair, 4096), A::tiled_one_stage);
  EXPECT_DOUBLE_EQ(model.predict(A::tree_two_stage, pair, 8), 2.0e-6) << "the twin runs the one-stage code";
  EXPECT_DOUBLE_EQ(model.predict(A::tiled_two_stage, pair, 4096), 8.0e-6);
}

}  // namespace

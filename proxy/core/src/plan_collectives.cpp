// Collective elements of a plan: validation, persistent requests, the non-blocking fallback.
#include "plan_collectives.hpp"

#include <algorithm>
#include <cstring>
#include <cstdint>
#include <iterator>
#include <type_traits>
#include <utility>
#include <vector>

#include "plan_checks.hpp"
#include "proxy/detail/counted.hpp"
#include "proxy/detail/elementwise.hpp"
#include "proxy/error.hpp"

namespace proxy {

namespace {
// Calls kernel(T*, op) with the element's type and operation when the runtime's element-wise kernels know
// them (a built-in operation on a common type); false for any other (MPI_Reduce_local then).
template <class Kernel>
bool with_inline_kernel(const CollectiveElement& e, Kernel&& kernel) {
  detail::ElementOp op{};
  if (e.op == MPI_SUM) op = detail::ElementOp::sum;
  else if (e.op == MPI_PROD) op = detail::ElementOp::prod;
  else if (e.op == MPI_MIN) op = detail::ElementOp::min;
  else if (e.op == MPI_MAX) op = detail::ElementOp::max;
  else return false;
  if (e.type == MPI_DOUBLE) return kernel(static_cast<double*>(nullptr), op), true;
  if (e.type == MPI_FLOAT) return kernel(static_cast<float*>(nullptr), op), true;
  // Integers wrap in the kernels as in MPI's sums and products.
  if (e.type == MPI_INT32_T || (e.type == MPI_INT && sizeof(int) == 4))
    return kernel(static_cast<std::int32_t*>(nullptr), op), true;
  if (e.type == MPI_INT64_T || (e.type == MPI_LONG && sizeof(long) == 8) ||
      (e.type == MPI_LONG_LONG && sizeof(long long) == 8))
    return kernel(static_cast<std::int64_t*>(nullptr), op), true;
  return false;
}

// staging[first, first + n) = ((c0 op c1) op c2) ... over those elements; c0 op c1 in one pass.
template <typename T>
void reduce_range(const std::vector<const void*>& contributions, detail::ElementOp op, std::byte* staging,
                  std::size_t first, std::size_t n) {
  T* out = reinterpret_cast<T*>(staging) + first;
  const auto in = [&](std::size_t c) { return static_cast<const T*>(contributions[c]) + first; };
  if (contributions.size() == 1) {
    std::memcpy(out, in(0), n * sizeof(T));
    return;
  }
  detail::combine_elements(op, in(0), in(1), out, n);
  for (std::size_t c = 2; c < contributions.size(); ++c) detail::combine_elements(op, out, in(c), out, n);
}

// The built-in operations by name; an element's operation travels between ranks as its index here (MPI_Op
// handles are addresses in some MPIs, which differ between processes). 0: none (a broadcast); user-defined
// operations are one code, since nothing tells two ranks' user operations apart.
struct NamedOp {
  MPI_Op op;
  const char* name;
};
const NamedOp kNamedOps[] = {{MPI_OP_NULL, "none"}, {MPI_SUM, "MPI_SUM"},   {MPI_PROD, "MPI_PROD"},
                             {MPI_MIN, "MPI_MIN"},   {MPI_MAX, "MPI_MAX"},   {MPI_LAND, "MPI_LAND"},
                             {MPI_BAND, "MPI_BAND"}, {MPI_LOR, "MPI_LOR"},   {MPI_BOR, "MPI_BOR"},
                             {MPI_LXOR, "MPI_LXOR"}, {MPI_BXOR, "MPI_BXOR"}, {MPI_MINLOC, "MPI_MINLOC"},
                             {MPI_MAXLOC, "MPI_MAXLOC"}, {MPI_REPLACE, "MPI_REPLACE"}};
constexpr long long kUserOpCode = static_cast<long long>(std::size(kNamedOps));

long long agreed_op_code(const CollectiveElement& e) {
  if (e.kind == CollectiveElement::Kind::broadcast) return 0;
  for (std::size_t i = 1; i < std::size(kNamedOps); ++i)
    if (e.op == kNamedOps[i].op) return static_cast<long long>(i);
  return e.op == MPI_OP_NULL ? 0 : kUserOpCode;
}

std::string agreed_op_name(long long code) {
  if (code >= 0 && code < kUserOpCode) return kNamedOps[code].name;
  return "a user-defined operation";
}

// "a broadcast", "an allreduce".
std::string agreed_kind_name(long long code) {
  const std::string name = kind_name(static_cast<CollectiveElement::Kind>(code));
  return (name.front() == 'a' ? "an " : "a ") + name;
}

// Each value's minimum and maximum over `comm` in one MPI_Allreduce (MPI_MIN of the values and of their
// negations): {min, max} per value.
std::vector<std::pair<long long, long long>> extremes_over(MPI_Comm comm, const std::vector<long long>& values) {
  std::vector<long long> both(values);
  for (long long v : values) both.push_back(-v);
  std::vector<long long> reduced(both.size());
  const int code = MPI_Allreduce(both.data(), reduced.data(), static_cast<int>(both.size()), MPI_LONG_LONG, MPI_MIN,
                                 comm);
  if (code != MPI_SUCCESS)
    throw Error("comparing the collective elements between the ranks (MPI_Allreduce) failed: " +
                mpi_error_string(code));
  std::vector<std::pair<long long, long long>> result;
  for (std::size_t i = 0; i < values.size(); ++i) result.emplace_back(reduced[i], -reduced[values.size() + i]);
  return result;
}
}  // namespace

void agree_on_collectives(const PlanSpec& spec, bool refused_here, AgreementProgress& waiting) {
  const auto& elements = spec.collectives();
  for (const CollectiveElement& e : elements)
    if (e.comm == MPI_COMM_NULL) return;  // refused here by validate_collectives; no communicator to ask
  const std::string plan = "plan '" + spec.name() + "': ";
  std::vector<MPI_Comm> done;
  for (const CollectiveElement& first : elements) {
    const MPI_Comm comm = first.comm;
    if (std::find(done.begin(), done.end(), comm) != done.end()) continue;
    done.push_back(comm);
    int size = 1;
    int inter = 0;
    MPI_Comm_size(comm, &size);
    MPI_Comm_test_inter(comm, &inter);  // an intercommunicator's MPI_Allreduce combines the other group's values
    if (size == 1 || inter) continue;
    std::vector<std::size_t> on_comm;  // the plan's elements on this communicator, in the plan's order
    for (std::size_t i = 0; i < elements.size(); ++i)
      if (elements[i].comm == comm) on_comm.push_back(i);
    waiting.ranks.store(size, std::memory_order_relaxed);
    waiting.element.store(static_cast<int>(on_comm.front()), std::memory_order_release);
    const auto head = extremes_over(comm, {refused_here ? 1 : 0, static_cast<long long>(on_comm.size())});
    waiting.element.store(-1, std::memory_order_release);  // every rank has joined: the rest cannot wait for one
    if (head[0].second != 0) {
      if (refused_here) return;  // this rank rethrows its own refusal
      throw Error(plan + "refused on another rank of the communicator of its " + kind_name(first.kind) +
                  " element " + std::to_string(on_comm.front()) + " (that rank's error names why)");
    }
    if (head[1].first != head[1].second)
      throw Error(plan + "its collective elements on the communicator of its " + kind_name(first.kind) + " element " +
                  std::to_string(on_comm.front()) + " number " + std::to_string(head[1].first) + " on some ranks and " +
                  std::to_string(head[1].second) +
                  " on others: every rank commits the same elements in the same order");
    std::vector<long long> shape;  // per element: kind, root, bytes, operation
    for (std::size_t i : on_comm) {
      const CollectiveElement& e = elements[i];
      shape.push_back(static_cast<long long>(e.kind));
      shape.push_back(e.kind == CollectiveElement::Kind::allreduce ? 0 : e.root);
      shape.push_back(static_cast<long long>(static_cast<std::uint64_t>(e.count) * datatype_size(e.type)));
      shape.push_back(agreed_op_code(e));
    }
    const auto range = extremes_over(comm, shape);
    for (std::size_t k = 0; k < on_comm.size(); ++k) {
      const CollectiveElement& e = elements[on_comm[k]];
      const std::string item = plan + kind_name(e.kind) + " element " + std::to_string(on_comm[k]) + " ";
      const auto& kind = range[4 * k];
      const auto& root = range[4 * k + 1];
      const auto& bytes = range[4 * k + 2];
      const auto& op = range[4 * k + 3];
      if (kind.first != kind.second)
        throw Error(plan + "collective element " + std::to_string(on_comm[k]) + " is " + agreed_kind_name(kind.first) +
                    " on some ranks and " + agreed_kind_name(kind.second) + " on others");
      if (root.first != root.second)
        throw Error(item + "names root " + std::to_string(root.first) + " on some ranks and " +
                    std::to_string(root.second) + " on others: every rank must name the same root");
      if (bytes.first != bytes.second)
        throw Error(item + "has " + std::to_string(bytes.first) + " bytes on some ranks and " +
                    std::to_string(bytes.second) + " on others (here count " + std::to_string(e.count) + " of " +
                    std::to_string(datatype_size(e.type)) + " bytes): every rank must give the same count and type");
      if (op.first != op.second)
        throw Error(item + "has operation " + agreed_op_name(op.first) + " on some ranks and " +
                    agreed_op_name(op.second) + " on others: every rank must give the same operation");
    }
  }
}

bool reduces_in_ranges(const CollectiveElement& e) {
  std::size_t alignment = 0;
  if (!with_inline_kernel(e, [&](auto* type, detail::ElementOp) { alignment = alignof(decltype(*type)); }))
    return false;
  // The kernels read and write T*: a contribution or result at an address MPI accepts but T does not (a
  // double at an odd address) goes through MPI_Reduce_local instead (the staging buffer is new's, aligned).
  const auto aligned = [&](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % alignment == 0; };
  if (!aligned(e.buffer)) return false;
  for (const void* c : e.contributions)
    if (!aligned(c)) return false;
  return true;
}

void reduce_contribution_range(const CollectiveElement& e, std::byte* staging, std::size_t first, std::size_t n) {
  with_inline_kernel(e, [&](auto* type, detail::ElementOp op) {
    reduce_range<std::remove_pointer_t<decltype(type)>>(e.contributions, op, staging, first, n);
  });
}

bool persistent_collectives_available() noexcept {
#if PROXY_HAVE_PERSISTENT_COLLECTIVES
  return true;
#else
  return false;
#endif
}

bool result_overlaps_contributions(const CollectiveElement& e, std::uint64_t span) {
  const auto begin = reinterpret_cast<std::uintptr_t>(e.buffer);
  for (const void* c : e.contributions) {
    const auto other = reinterpret_cast<std::uintptr_t>(c);
    if (begin < other + span && other < begin + span) return true;
  }
  return false;
}

bool needs_staging(const CollectiveElement& e, std::uint64_t span) {
  return !e.contributions.empty() &&
         (e.kind != CollectiveElement::Kind::allreduce || result_overlaps_contributions(e, span));
}

void validate_collectives(const PlanSpec& spec, MPI_Comm comm) {
  for (std::size_t i = 0; i < spec.collectives().size(); ++i) {
    const CollectiveElement& e = spec.collectives()[i];
    const std::string item = "plan '" + spec.name() + "': " + kind_name(e.kind) + " element " + std::to_string(i) + " ";
    if (e.comm == MPI_COMM_NULL) throw Error(item + "has MPI_COMM_NULL as its communicator");
    int size = 0;
    MPI_Comm_size(e.comm, &size);
    if (e.kind != CollectiveElement::Kind::allreduce && (e.root < 0 || e.root >= size))
      throw Error(item + "names root " + std::to_string(e.root) + ", outside its communicator (size " +
                  std::to_string(size) + ")");
    if (e.count < 0) throw Error(item + "has a negative count " + std::to_string(e.count));
    int rank = 0;
    MPI_Comm_rank(e.comm, &rank);
    // MPI_Reduce ignores the receive buffer off the root, so a null one is allowed there, as MPI allows it.
    const bool result_ignored = e.kind == CollectiveElement::Kind::reduce && rank != e.root;
    if (e.count > 0 && e.buffer == nullptr && !result_ignored)
      throw Error(item + "has a null buffer for count " + std::to_string(e.count));
    if (e.type == MPI_DATATYPE_NULL) throw Error(item + "has MPI_DATATYPE_NULL");
    if (const std::string refusal = datatype_refusal(e.type, comm); !refusal.empty()) throw Error(item + refusal);
    if (e.kind != CollectiveElement::Kind::broadcast && e.op == MPI_OP_NULL) throw Error(item + "has MPI_OP_NULL");
    if (e.kind != CollectiveElement::Kind::broadcast && e.count > 0 && e.send == nullptr && e.contributions.empty())
      throw Error(item + "has a null send buffer and no contributions for count " + std::to_string(e.count));
    for (std::size_t c = 0; c < e.contributions.size(); ++c)
      if (e.contributions[c] == nullptr && e.count > 0)
        throw Error(item + "has a null contribution " + std::to_string(c) + " for count " + std::to_string(e.count));
    if (!e.contributions.empty()) {
      // The proxy copies and reduces contributions into a staging buffer laid out as theirs: each element's data
      // contiguous from its first byte. Padding after it is allowed: MPI_DOUBLE_INT (12 bytes of data, extent
      // 16) for a MINLOC over the threads.
      const std::uint64_t size = datatype_size(e.type);
      MPI_Aint lower = 0, extent = 0, true_lower = 0, true_extent = 0;
      MPI_Type_get_extent(e.type, &lower, &extent);
      MPI_Type_get_true_extent(e.type, &true_lower, &true_extent);
      if (lower != 0 || true_lower != 0 || static_cast<std::uint64_t>(true_extent) != size || extent < true_extent)
        throw Error(item + "has contributions of a non-contiguous datatype (size " + std::to_string(size) +
                    ", extent " + std::to_string(true_extent) + "): use a contiguous one");
      // Before PlanOperation allocates it (a bad_alloc there would name nothing): count x extent bytes.
      if (needs_staging(e, buffer_span(static_cast<std::uint64_t>(e.count), e.type)))
        if (const std::string refusal = staging_refusal(e.count, static_cast<std::uint64_t>(extent));
            !refusal.empty())
          throw Error(item + refusal);
    }
  }
}

int reduce_contributions(const CollectiveElement& e, std::byte* staging) {
  // Every byte from the first element's start to the last one's end (the padding between elements too).
  const auto bytes = static_cast<std::size_t>(buffer_span(static_cast<std::uint64_t>(e.count), e.type));
  if (bytes == 0) return MPI_SUCCESS;
  if (reduces_in_ranges(e)) {
    reduce_contribution_range(e, staging, 0, static_cast<std::size_t>(e.count));
    return MPI_SUCCESS;
  }
  std::memcpy(staging, e.contributions.front(), bytes);
  // MPI_Reduce_local(in, inout) computes inout = in op inout: forward, that is ((c0 op c1) op c2) only when
  // the operation commutes; otherwise fold from the last contribution, c0 op (c1 op (c2 ...)), equal by
  // associativity (which MPI assumes of every operation).
  int commutes = 1;
  MPI_Op_commutative(e.op, &commutes);
  const std::size_t n = e.contributions.size();
  if (!commutes) std::memcpy(staging, e.contributions.back(), bytes);
  for (std::size_t i = 1; i < n; ++i) {
    const void* in = commutes ? e.contributions[i] : e.contributions[n - 1 - i];
    const int code = MPI_Reduce_local(in, staging, e.count, e.type, e.op);
    if (code != MPI_SUCCESS) return code;
  }
  return MPI_SUCCESS;
}

int detail::init_persistent_collective([[maybe_unused]] const CollectiveElement& e, [[maybe_unused]] MPI_Comm comm,
                                       [[maybe_unused]] MPI_Request* request) {
#if PROXY_HAVE_PERSISTENT_COLLECTIVES
  switch (e.kind) {
    case CollectiveElement::Kind::broadcast:
      return MPI_Bcast_init(e.buffer, e.count, e.type, e.root, comm, MPI_INFO_NULL, request);
    case CollectiveElement::Kind::reduce:
      return MPI_Reduce_init(e.send, e.buffer, e.count, e.type, e.op, e.root, comm, MPI_INFO_NULL, request);
    case CollectiveElement::Kind::allreduce:
      return MPI_Allreduce_init(e.send, e.buffer, e.count, e.type, e.op, comm, MPI_INFO_NULL, request);
  }
#endif
  return MPI_ERR_OTHER;  // not reached: the caller asks only when persistent_collectives_available()
}

int detail::start_nonblocking_collective(const CollectiveElement& e, MPI_Comm comm, MPI_Request* request) {
  switch (e.kind) {
    case CollectiveElement::Kind::broadcast:
      return MPI_Ibcast(e.buffer, e.count, e.type, e.root, comm, request);
    case CollectiveElement::Kind::reduce:
      return MPI_Ireduce(e.send, e.buffer, e.count, e.type, e.op, e.root, comm, request);
    case CollectiveElement::Kind::allreduce:
      return MPI_Iallreduce(e.send, e.buffer, e.count, e.type, e.op, comm, request);
  }
  return MPI_ERR_OTHER;
}

std::string describe(const CollectiveElement& e, int comm_size, unsigned long long bytes) {
  std::string text = kind_name(e.kind);
  if (e.kind != CollectiveElement::Kind::allreduce) text += (e.kind == CollectiveElement::Kind::broadcast ? " from" : " to") + std::string(" root ") + std::to_string(e.root);
  return text + " over " + detail::counted(comm_size, "rank") + " (" + detail::counted(bytes, "byte") + ")";
}

}  // namespace proxy

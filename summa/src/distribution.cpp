#include "summa/distribution.hpp"

#include <cassert>

namespace summa {

BlockDistribution::BlockDistribution(std::int64_t extent, int parts)
    : extent_(extent), parts_(parts), base_(parts > 0 ? extent / parts : 0),
      remainder_(parts > 0 ? extent % parts : 0) {
  assert(extent >= 0 && parts >= 1 && "BlockDistribution: extent >= 0, parts >= 1");
}

std::int64_t BlockDistribution::offset(int part) const noexcept {
  assert(part >= 0 && part <= parts_);
  return part * base_ + (part < remainder_ ? part : remainder_);
}

std::int64_t BlockDistribution::size(int part) const noexcept {
  assert(part >= 0 && part < parts_);
  return base_ + (part < remainder_ ? 1 : 0);
}

int BlockDistribution::owner(std::int64_t index) const noexcept {
  assert(index >= 0 && index < extent_);
  // The first remainder_ parts are one longer; past them every part has base_ indices.
  const std::int64_t long_span = remainder_ * (base_ + 1);
  if (index < long_span) return static_cast<int>(index / (base_ + 1));
  return static_cast<int>(remainder_ + (index - long_span) / base_);
}

}  // namespace summa

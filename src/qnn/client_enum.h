// A client struct's enum field as the integer it holds.
//
// A C client may store any value of an enum's underlying type in it (a
// forged config, an uninitialised field), but C++ may not load a value
// outside the enum's range as the enum: UBSan (-fsanitize=enum) stops on
// it, and an optimizer may assume it away. Fields whose every value is
// checked against a range (a priority, compared with the highest level)
// are read through this, as the bits they are.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace openhtp::qnn {

template <typename E>
std::underlying_type_t<E> enum_bits(const E& field) {
  static_assert(std::is_enum_v<E>);
  std::underlying_type_t<E> bits;
  std::memcpy(&bits, &field, sizeof bits);
  return bits;
}

}  // namespace openhtp::qnn

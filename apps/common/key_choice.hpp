#pragma once
// String keys that select an enumerator (nonlinear.method = picard | newton | auto, ...): one
// table of names per key serves both the reading of the key and its default, which is the name
// of the parameter struct's default, so the default is written once, in the struct.

#include <cstddef>
#include <stdexcept>
#include <string>

#include "io/config.hpp"

namespace quilt {

/// One admissible value of a key and the enumerator it selects.
template <class E>
struct KeyChoice {
  const char* name;
  E value;
};

/// The name of `value` in `choices` (std::logic_error if the table lacks it).
template <class E, std::size_t N>
std::string choice_name(const KeyChoice<E> (&choices)[N], E value) {
  for (const KeyChoice<E>& c : choices)
    if (c.value == value) return c.name;
  throw std::logic_error("a key's table of choices lacks an enumerator");
}

/// The enumerator that the value of `key` names; ConfigError "'x' is not a, b or c" otherwise.
template <class E, std::size_t N>
E read_choice(const Config& config, const std::string& key, const KeyChoice<E> (&choices)[N]) {
  const auto name = config.get<std::string>(key);
  std::string names;
  for (std::size_t k = 0; k < N; ++k) {
    if (choices[k].name == name) return choices[k].value;
    names += (k == 0 ? "" : (k + 1 == N ? " or " : ", ")) + std::string(choices[k].name);
  }
  config.fail(key, "'" + name + "' is not " + names);
}

}  // namespace quilt

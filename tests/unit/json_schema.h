// SPDX-License-Identifier: Apache-2.0
// A small JSON Schema validator for the subset our schemas use: type,
// const, enum, required, properties, additionalProperties (false or a schema), items,
// oneOf and local $ref. Returns the first violation found, or "".
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace kseg::test {

std::string schema_violation(const nlohmann::json& root_schema, const nlohmann::json& schema,
                             const nlohmann::json& value, const std::string& where = "$");

}  // namespace kseg::test

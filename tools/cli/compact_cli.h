// SPDX-License-Identifier: Apache-2.0
// kseg-compact's entry point, callable in-process by tests and by `kseg`.
#pragma once

namespace kseg {

int compact_main(int argc, char** argv);

}  // namespace kseg

// SPDX-License-Identifier: Apache-2.0
// kseg-doctor's entry point, callable in-process by tests and by `kseg`.
#pragma once

namespace kseg {

int doctor_main(int argc, char** argv);

}  // namespace kseg

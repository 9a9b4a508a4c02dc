// SPDX-License-Identifier: Apache-2.0
// kseg-verify's command line, callable in-process by the `kseg` front end.
#pragma once

namespace kseg {

int verify_main(int argc, char** argv);

}  // namespace kseg

// SPDX-License-Identifier: Apache-2.0
package kseg.oracle;

import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Runs LoadCheck for many directories in one JVM (start-up is most of a load check's cost).
 * Usage: LoadCheckBatch JOBS_FILE, one job per line: OUTPUT_FILE<TAB>LoadCheck args separated by tabs.
 * A load that throws writes "# load failed: <exception>" to its output file instead.
 */
public final class LoadCheckBatch {
    public static void main(String[] args) throws Exception {
        PrintStream stdout = System.out;
        for (String line : Files.readAllLines(Path.of(args[0]))) {
            if (line.isBlank()) continue;
            List<String> f = new ArrayList<>(Arrays.asList(line.split("\t")));
            String outFile = f.remove(0);
            try (PrintStream ps = new PrintStream(new FileOutputStream(outFile), false, "UTF-8")) {
                System.setOut(ps);
                try {
                    LoadCheck.main(f.toArray(new String[0]));
                } catch (Exception e) {
                    ps.println("# load failed: " + e);
                } finally {
                    System.out.flush();
                    System.setOut(stdout);
                }
            }
        }
    }
}

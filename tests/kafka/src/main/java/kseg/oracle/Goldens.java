// SPDX-License-Identifier: Apache-2.0
package kseg.oracle;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeMap;
import org.apache.kafka.common.utils.internals.Exit;
import org.apache.kafka.tools.DumpLogSegments;

/**
 * Runs Kafka's DumpLogSegments over every file of one case and stores what it printed.
 *
 * Usage (the JVM's working directory must be a scratch copy of the case, because
 * DumpLogSegments prints paths as given and some of its code paths create or open files
 * read-write): Goldens --src CASE_DIR --dump DUMP_DIR
 * Before every run the scratch copy is reset from CASE_DIR, so no run sees another's
 * side effects, and a run that changed the input is reported on our stderr.
 */
public final class Goldens {
    /** Thrown by the exit procedure so a System.exit inside the tool ends only one run. */
    static final class ExitCalled extends RuntimeException {
        final int code;
        ExitCalled(int code) { super(null, null, false, false); this.code = code; }
    }

    record Result(byte[] out, byte[] err, int exit) { }

    public static void main(String[] args) throws Exception {
        Path src = Path.of(args[1]).toAbsolutePath();
        Path dump = Path.of(args[3]).toAbsolutePath();
        Path work = Path.of("").toAbsolutePath();
        Generate.deleteTree(dump.toFile());
        Files.createDirectories(dump);
        TreeMap<String, List<String>> plan = plan(src);
        int changed = 0;
        for (var e : plan.entrySet()) {
            Tree.reset(src, work);
            Result r = run(e.getValue().toArray(new String[0]));
            if (!Tree.digest(src).equals(Tree.digest(work))) {
                changed++;
                System.err.println("NOTE: " + src.getFileName() + "/" + e.getKey() + " changed its input copy");
            }
            Files.writeString(dump.resolve(e.getKey() + ".args"), String.join("\n", e.getValue()) + "\n");
            Files.write(dump.resolve(e.getKey() + ".out"), r.out());
            Files.write(dump.resolve(e.getKey() + ".err"), r.err());
            Files.writeString(dump.resolve(e.getKey() + ".exit"), r.exit() + "\n");
        }
        Tree.reset(src, work);
        System.out.println(src.getFileName() + ": " + plan.size() + " goldens" + (changed > 0 ? ", " + changed + " changed their input" : ""));
    }

    /** golden name -> DumpLogSegments arguments, for every file of the case. */
    static TreeMap<String, List<String>> plan(Path caseDir) throws IOException {
        TreeMap<String, List<String>> plan = new TreeMap<>();
        for (File f : sorted(caseDir.toFile())) {
            if (f.isFile() && !f.getName().equals("case.json")) addFile(plan, "root", f.getName(), f, null);
        }
        for (File d : sorted(caseDir.toFile())) {
            if (!d.isDirectory() || d.getName().equals("dump")) continue;
            String decoder = decoderFor(d.getName());
            List<String> all = new ArrayList<>();
            for (File f : sorted(d)) {
                if (!f.isFile()) continue;
                String rel = d.getName() + "/" + f.getName();
                all.add(rel);
                addFile(plan, d.getName(), rel, f, decoder);
            }
            if (all.size() > 1) {
                // Several files in one run: exercises the end-of-run summaries on stderr.
                plan.put(d.getName() + ".all.deep", List.of("--files", String.join(",", all), "--deep-iteration"));
            }
        }
        return plan;
    }

    static void addFile(TreeMap<String, List<String>> plan, String dir, String rel, File f, String decoder) {
        String base = dir + "." + f.getName() + ".";
        String name = f.getName();
        plan.put(base + "plain", List.of("--files", rel));
        if (name.endsWith(".log") || name.endsWith(".checkpoint") && !name.equals("cleaner-offset-checkpoint")) {
            plan.put(base + "deep", List.of("--files", rel, "--deep-iteration"));
            plan.put(base + "data", List.of("--files", rel, "--print-data-log"));
            plan.put(base + "data-skip", List.of("--files", rel, "--print-data-log", "--skip-record-metadata"));
            // Half the file: the cut lands inside a batch in all but freak cases.
            plan.put(base + "max-bytes", List.of("--files", rel, "--max-bytes", Long.toString(Math.max(1, f.length() / 2))));
            if (decoder != null) plan.put(base + "decoder", List.of("--files", rel, decoder));
        } else if (name.endsWith(".index") || name.endsWith(".timeindex")) {
            plan.put(base + "verify", List.of("--files", rel, "--verify-index-only"));
            plan.put(base + "sanity", List.of("--files", rel, "--index-sanity-check"));
        }
    }

    static String decoderFor(String partitionDir) {
        if (partitionDir.startsWith("__consumer_offsets-")) return "--offsets-decoder";
        if (partitionDir.startsWith("__transaction_state-")) return "--transaction-log-decoder";
        if (partitionDir.startsWith("__cluster_metadata-")) return "--cluster-metadata-decoder";
        if (partitionDir.startsWith("__share_group_state-")) return "--share-group-state-decoder";
        if (partitionDir.startsWith("__remote_log_metadata-")) return "--remote-log-metadata-decoder";
        return null;
    }

    static List<File> sorted(File dir) {
        File[] fs = dir.listFiles();
        if (fs == null) return List.of();
        Arrays.sort(fs);
        return List.of(fs);
    }

    /** One DumpLogSegments run in this JVM, with stdout/stderr/exit captured as a separate
     *  `java org.apache.kafka.tools.DumpLogSegments ...` process would have produced them. */
    static Result run(String[] args) {
        PrintStream oldOut = System.out, oldErr = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        PrintStream pout = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream perr = new PrintStream(err, true, StandardCharsets.UTF_8);
        int exit = 0;
        Exit.setExitProcedure((code, msg) -> { throw new ExitCalled(code); });
        Exit.setHaltProcedure((code, msg) -> { throw new ExitCalled(code); });
        System.setOut(pout);
        System.setErr(perr);
        try {
            DumpLogSegments.main(args);
        } catch (ExitCalled e) {
            exit = e.code;
        } catch (Throwable t) {
            // What the JVM's default handler prints for an exception escaping main.
            perr.print("Exception in thread \"main\" ");
            trimBelowMain(t);
            t.printStackTrace(perr);
            exit = 1;
        } finally {
            pout.flush();
            perr.flush();
            System.setOut(oldOut);
            System.setErr(oldErr);
            Exit.resetExitProcedure();
            Exit.resetHaltProcedure();
        }
        return new Result(out.toByteArray(), err.toByteArray(), exit);
    }

    /** Drops this runner's frames (those below DumpLogSegments.main) from t and its causes, so
     *  the trace, including the "... N more" counts, reads as from a JVM whose main is the tool. */
    static void trimBelowMain(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            StackTraceElement[] st = c.getStackTrace();
            for (int i = 0; i < st.length; i++) {
                if (st[i].getClassName().equals(DumpLogSegments.class.getName()) && st[i].getMethodName().equals("main")) {
                    c.setStackTrace(Arrays.copyOf(st, i + 1));
                    break;
                }
            }
            for (Throwable s : c.getSuppressed()) trimBelowMain(s);
        }
    }
}

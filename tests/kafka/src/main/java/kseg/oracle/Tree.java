// SPDX-License-Identifier: Apache-2.0
package kseg.oracle;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;

/** Copying and fingerprinting of small case trees (the dump/ folder is never part of either). */
final class Tree {
    private Tree() { }

    static List<Path> files(Path root) throws IOException {
        try (var s = Files.walk(root)) {
            return s.filter(Files::isRegularFile)
                    .filter(p -> !root.relativize(p).toString().startsWith("dump/"))
                    .sorted().toList();
        }
    }

    /** Makes dst's contents equal src's (without dump/), keeping dst itself (it may be a cwd). */
    static void reset(Path src, Path dst) throws IOException {
        try (var s = Files.list(dst)) {
            for (Path p : s.toList()) Generate.deleteTree(p.toFile());
        }
        for (Path f : files(src)) {
            Path to = dst.resolve(src.relativize(f).toString());
            Files.createDirectories(to.getParent());
            Files.copy(f, to, StandardCopyOption.COPY_ATTRIBUTES);
        }
    }

    /** SHA-256 over names, sizes and contents. */
    static String digest(Path root) throws IOException {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            for (Path f : files(root)) {
                md.update(root.relativize(f).toString().getBytes());
                md.update(Long.toString(Files.size(f)).getBytes());
                md.update(Files.readAllBytes(f));
            }
            return HexFormat.of().formatHex(md.digest());
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}

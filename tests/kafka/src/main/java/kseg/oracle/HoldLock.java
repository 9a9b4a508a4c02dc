// SPDX-License-Identifier: Apache-2.0
package kseg.oracle;

import java.io.File;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.StandardOpenOption;

/**
 * Holds the lock a broker holds on a log dir (FileLock.tryLock on <logdir>/.lock, as Kafka's
 * FileLock class does) until stdin closes. Prints "locked" once it holds it.
 * Usage: HoldLock LOG_DIR
 */
public final class HoldLock {
    public static void main(String[] args) throws Exception {
        File f = new File(args[0], ".lock");
        try (FileChannel ch = FileChannel.open(f.toPath(), StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE);
             FileLock lock = ch.tryLock()) {
            if (lock == null) throw new IllegalStateException("could not lock " + f);
            System.out.println("locked");
            System.out.flush();
            while (System.in.read() >= 0) { }
        }
    }
}

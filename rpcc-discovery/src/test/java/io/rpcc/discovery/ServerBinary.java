package io.rpcc.discovery;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Finds the binary of a server a test starts (etcd, dnsmasq): on the PATH, or where its Debian
 * package puts it. Where it is missing the test is skipped with a message saying how to install it,
 * unless {@code CI=true}: then it fails.
 */
final class ServerBinary {
    private ServerBinary() {
    }

    /** The path of {@code name}, found on the PATH or at {@code fallback} (from Debian's {@code debianPackage}). */
    static String findOrSkip(String name, Path fallback, String debianPackage) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (Files.isExecutable(Path.of(dir, name))) {
                return Path.of(dir, name).toString();
            }
        }
        if (Files.isExecutable(fallback)) {
            return fallback.toString();
        }
        String why = "no " + name + " binary on the PATH or at " + fallback + " (install Debian's " + debianPackage
                + ": apt-get install -y " + debianPackage + "; ./rpcc test does so when it may)";
        if ("true".equals(System.getenv("CI"))) {
            throw new IllegalStateException(why + "; CI=true, so this fails instead of skipping");
        }
        assumeTrue(false, why + ": skipped");
        throw new AssertionError("unreachable");
    }
}

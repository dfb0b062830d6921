package io.rpcc.core.testing;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * What a JVM holds that an attack could make it keep: live threads, open file descriptors and heap
 * in use after a collection. Attack tests take a snapshot before, run the attack and a normal chain,
 * then {@link #assertBackTo assert} that the JVM returned to the snapshot within a tolerance (other
 * work in the JVM, such as a shared event loop starting a thread, moves the figures a little).
 *
 * @param threads live platform threads of the whole JVM (whatever their thread group)
 * @param fileDescriptors open file descriptors ({@code -1} where {@code /proc/self/fd} does not exist)
 * @param heapBytes heap in use after a full collection
 */
public record HostResources(int threads, int fileDescriptors, long heapBytes) {

    /** Collects garbage, then reads the figures. */
    public static HostResources now() {
        gc();
        return new HostResources(ManagementFactory.getThreadMXBean().getThreadCount(), openFileDescriptors(),
                ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
    }

    /**
     * Waits (up to 10 s) until this JVM holds no more than {@code baseline} plus the given slack of
     * threads, file descriptors and heap bytes; fails with the figures if it does not.
     */
    public static HostResources assertBackTo(HostResources baseline, int threadSlack, int fdSlack, long heapSlack) {
        long deadline = System.nanoTime() + 10_000_000_000L;
        HostResources now;
        do {
            now = now();
            boolean back = now.threads <= baseline.threads + threadSlack
                    && (baseline.fileDescriptors < 0 || now.fileDescriptors <= baseline.fileDescriptors + fdSlack)
                    && now.heapBytes <= baseline.heapBytes + heapSlack;
            if (back) {
                return now;
            }
            sleep(100);
        } while (System.nanoTime() < deadline);
        fail("resources did not return to the baseline: before " + baseline + ", now " + now
                + " (slack: " + threadSlack + " threads, " + fdSlack + " fds, " + heapSlack + " heap bytes); threads now: "
                + threadNames() + "; file descriptors now: " + fileDescriptorKinds());
        return now;
    }

    /** The names of the JVM's live platform threads whose names start with {@code prefix}. */
    public static List<String> threadsNamed(String prefix) {
        return Thread.getAllStackTraces().keySet().stream().map(Thread::getName).filter(n -> n.startsWith(prefix))
                .sorted().toList();
    }

    /** The names of the JVM's live platform threads, for a failure message. */
    public static String threadNames() {
        return Thread.getAllStackTraces().keySet().stream().map(Thread::getName).sorted().toList().toString();
    }

    /** How many open file descriptors of each kind (socket, pipe, eventpoll, file...) the JVM has. */
    public static String fileDescriptorKinds() {
        Path fds = Path.of("/proc/self/fd");
        if (!Files.isDirectory(fds)) {
            return "unknown";
        }
        try (Stream<Path> s = Files.list(fds)) {
            return s.map(fd -> {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    int bracket = target.indexOf(':');
                    return target.startsWith("/") ? "file" : bracket > 0 ? target.substring(0, bracket) : target;
                } catch (IOException e) {
                    return "gone";
                }
            }).collect(Collectors.groupingBy(k -> k, TreeMap::new, Collectors.counting())).toString();
        } catch (IOException e) {
            return "unknown";
        }
    }

    private static int openFileDescriptors() {
        Path fds = Path.of("/proc/self/fd");
        if (!Files.isDirectory(fds)) {
            return -1;
        }
        try (Stream<Path> s = Files.list(fds)) {
            return (int) s.count();
        } catch (IOException e) {
            return -1;
        }
    }

    private static void gc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
            sleep(20);
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

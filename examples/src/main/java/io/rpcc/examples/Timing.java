package io.rpcc.examples;

import io.rpcc.testkit.WanEmulator;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Medians and warm-up for the scenario runners. */
public final class Timing {
    private Timing() {
    }

    /** Something a runner measures. */
    @FunctionalInterface
    public interface Task {
        void run() throws Exception;
    }

    /** The median of {@code xs} (the upper one for an even count), as the paper reports. */
    public static double median(List<Double> xs) {
        List<Double> sorted = new ArrayList<>(xs);
        Collections.sort(sorted);
        return sorted.get(sorted.size() / 2);
    }

    /**
     * Warms the JVM up so that the JIT has compiled the paths being measured: on a cold JVM a
     * round trip costs about a millisecond more than on a warm one (measured here: 1.2–1.5 ms of
     * overhead per call after a few hundred calls, 0.3–0.7 ms after 20,000), which a service's
     * long-running JVM does not pay. Runs {@code task} for {@code duration} with the emulator's
     * delays off (thousands of runs instead of the few dozen the links' latency would allow), then
     * twice across the emulated links.
     */
    public static void warmUp(Duration duration, WanEmulator wan, Task task) throws Exception {
        long end = System.nanoTime() + duration.toNanos();
        int n = 0;
        wan.setDelaying(false);
        try {
            while (n < 2 || System.nanoTime() < end) {
                task.run();
                n++;
            }
        } finally {
            wan.setDelaying(true);
        }
        task.run();
        task.run();
    }

    /** Milliseconds taken by {@code task}. */
    public static double millis(Task task) throws Exception {
        long start = System.nanoTime();
        task.run();
        return (System.nanoTime() - start) / 1e6;
    }
}

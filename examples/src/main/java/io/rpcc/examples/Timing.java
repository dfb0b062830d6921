package io.rpcc.examples;

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
     * Runs {@code task} until {@code duration} has passed (and at least twice), so that the JIT has
     * compiled the paths being measured: on a cold JVM a hop costs milliseconds more than on a
     * warm one, which a service's long-running JVM does not pay.
     */
    public static void warmUp(Duration duration, Task task) throws Exception {
        long end = System.nanoTime() + duration.toNanos();
        int n = 0;
        while (n < 2 || System.nanoTime() < end) {
            task.run();
            n++;
        }
    }

    /** Milliseconds taken by {@code task}. */
    public static double millis(Task task) throws Exception {
        long start = System.nanoTime();
        task.run();
        return (System.nanoTime() - start) / 1e6;
    }
}

package io.rpcc.testcontainers;

import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import org.testcontainers.containers.ContainerLaunchException;
import org.testcontainers.containers.wait.strategy.AbstractWaitStrategy;

/**
 * Waits for the node's ready line on standard output ({@code rpcc node '<name>' ready at ...}): the image
 * has no shell, so port checks from inside the container cannot run. A node that exits first (a bad
 * configuration exits with code 2) fails the start at once, with the node's last output in the message.
 */
final class NodeReadyWaitStrategy extends AbstractWaitStrategy {
    private static final Duration POLL = Duration.ofMillis(100);

    private final String nodeName;
    private final int readyLinesBefore;

    /** Waits for more than {@code readyLinesBefore} ready lines of node {@code nodeName} in the container's output. */
    NodeReadyWaitStrategy(String nodeName, int readyLinesBefore) {
        this.nodeName = nodeName;
        this.readyLinesBefore = readyLinesBefore;
        // the node is ready once warm (its compilers, and in plaintext its spare function runners: up to
        // 30 s of its own on a loaded machine), after the JVM's start
        withStartupTimeout(Duration.ofSeconds(120));
    }

    /** How many times node {@code nodeName} printed its ready line in {@code logs}. */
    static int readyLines(String logs, String nodeName) {
        String readyLine = readyLine(nodeName);
        int count = 0;
        for (int i = logs.indexOf(readyLine); i >= 0; i = logs.indexOf(readyLine, i + readyLine.length())) {
            count++;
        }
        return count;
    }

    private static String readyLine(String nodeName) {
        return "rpcc node '" + nodeName + "' ready at ";
    }

    @Override
    protected void waitUntilReady() {
        String readyLine = readyLine(nodeName);
        Instant deadline = Instant.now().plus(startupTimeout);
        while (true) {
            String logs = waitStrategyTarget.getLogs();
            if (readyLines(logs, nodeName) > readyLinesBefore) {
                return;
            }
            if (!waitStrategyTarget.isRunning()) {
                Long exitCode = waitStrategyTarget.getCurrentContainerInfo().getState().getExitCodeLong();
                throw new ContainerLaunchException("node '" + nodeName + "' exited with code " + exitCode
                        + " before it was ready; its output ends with:\n" + tail(logs));
            }
            if (Instant.now().isAfter(deadline)) {
                throw new ContainerLaunchException("node '" + nodeName + "' did not print '" + readyLine + "...' within "
                        + startupTimeout.toSeconds() + " s; its output ends with:\n" + tail(logs));
            }
            try {
                Thread.sleep(POLL.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ContainerLaunchException("interrupted while waiting for node '" + nodeName + "'", e);
            }
        }
    }

    private static String tail(String logs) {
        String[] lines = logs.strip().split("\n");
        int from = Math.max(0, lines.length - 10);
        return String.join("\n", Arrays.copyOfRange(lines, from, lines.length));
    }
}

package io.rpcc.core.internal.function;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One function-runner process of a {@link FunctionRunnerPool}: started with its setup frame, then
 * asked one invocation at a time; killed (with its whole process tree) when an answer does not come
 * in time.
 */
final class RunnerProcess {
    /** How long {@link #exitCode} waits for a runner that closed its output to end. */
    static final long EXIT_WAIT_SECONDS = 10;
    private final Process process;
    private final DataOutputStream out;
    private final DataInputStream in;
    /** The end of what the runner wrote to its standard error (read all along, so that the pipe never fills). */
    private final ErrorTail errors;
    /** The functions (ids) this runner has compiled: their invocations need no compile allowance. */
    private final Set<String> compiled = ConcurrentHashMap.newKeySet();
    private volatile boolean killed;

    private RunnerProcess(Process process) {
        this.process = process;
        this.out = new DataOutputStream(new BufferedOutputStream(process.getOutputStream(), 1 << 16));
        this.in = new DataInputStream(new BufferedInputStream(process.getInputStream(), 1 << 16));
        this.errors = ErrorTail.drain(process.getErrorStream());
    }

    /** Starts a runner with {@code command}, sends {@code setup} and waits up to {@code timeoutMillis} for it to be ready. */
    static RunnerProcess start(List<String> command, byte[] setup, long timeoutMillis, ScheduledExecutorService timer)
            throws IOException {
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.redirectError(ProcessBuilder.Redirect.PIPE);
        pb.environment().put("MALLOC_ARENA_MAX", "2"); // fewer malloc arenas: less address space under ulimit -v
        RunnerProcess r = new RunnerProcess(pb.start());
        try {
            RunnerProtocol.writeFrame(r.out, setup, setup.length);
            r.call(null, TimeUnit.MILLISECONDS.toNanos(timeoutMillis), timer); // the ready frame
        } catch (IOException e) {
            String why = r.killed ? "it was not ready within " + timeoutMillis + " ms" : exitNote(r.process);
            r.kill();
            throw new StartFailure("the function runner did not start: " + why, r.errors.text(), e);
        } catch (RuntimeException | Error e) {
            r.kill(); // (the pool closed under it: its timer refuses the wait) never left running
            throw e;
        }
        return r;
    }

    private static String exitNote(Process p) {
        try {
            return p.waitFor(2, TimeUnit.SECONDS) ? "it exited with " + p.exitValue() : "it closed its output";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "it closed its output";
        }
    }

    /**
     * A runner that did not start: why (in the message, fit for a chain's failure), and the end of what it
     * wrote to its standard error (for the node's log only: it names the node's files and classes).
     */
    static final class StartFailure extends IOException {
        private final String errorOutput;

        StartFailure(String message, String errorOutput, Throwable cause) {
            super(message, cause);
            this.errorOutput = errorOutput;
        }

        /** The end of the runner's standard error, lines joined with " | ", or "" if it wrote nothing. */
        String errorOutput() {
            return errorOutput.replaceAll("\\s*\\R\\s*", " | ");
        }
    }

    /** The last few KiB a runner wrote to its standard error, kept while the rest is read and dropped. */
    private static final class ErrorTail {
        private static final int KEEP = 4096;
        private final byte[] ring = new byte[KEEP];
        private long written;
        private final Thread reader;

        private ErrorTail(InputStream stream) {
            this.reader = Thread.ofPlatform().daemon().stackSize(256 << 10).name("rpcc-function-runner-stderr")
                    .unstarted(() -> read(stream));
        }

        static ErrorTail drain(InputStream stream) {
            ErrorTail tail = new ErrorTail(stream);
            tail.reader.start();
            return tail;
        }

        private void read(InputStream stream) {
            byte[] buffer = new byte[8192];
            try (stream) {
                int n;
                while ((n = stream.read(buffer)) > 0) {
                    synchronized (this) {
                        for (int i = 0; i < n; i++) {
                            ring[(int) (written++ % KEEP)] = buffer[i];
                        }
                    }
                }
            } catch (IOException e) {
                // the runner has gone
            }
        }

        /** What the runner last wrote to its standard error, once it has ended (waiting a second for its last words). */
        String text() {
            try {
                reader.join(Duration.ofSeconds(1));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            String text;
            synchronized (this) {
                int n = (int) Math.min(written, KEEP);
                byte[] last = new byte[n];
                for (int i = 0; i < n; i++) {
                    last[i] = ring[(int) ((written - n + i) % KEEP)];
                }
                text = new String(last, StandardCharsets.UTF_8).strip();
            }
            return text;
        }
    }

    /**
     * Sends {@code request} (unless null) and reads the answer; the process is killed if the answer
     * has not come within {@code timeoutNanos}.
     *
     * @throws IOException if the process died or was killed first
     */
    byte[] call(byte[] request, long timeoutNanos, ScheduledExecutorService timer) throws IOException {
        ScheduledFuture<?> deadline = timer.schedule(this::kill, timeoutNanos, TimeUnit.NANOSECONDS);
        try {
            if (request != null) {
                RunnerProtocol.writeFrame(out, request, request.length);
            }
            return RunnerProtocol.readFrame(in);
        } finally {
            deadline.cancel(false);
        }
    }

    /** Whether this runner has compiled function {@code id} (without recording anything). */
    boolean hasCompiled(String id) {
        return compiled.contains(id);
    }

    /** Whether this runner has compiled function {@code id}; records that it will have. */
    boolean compiledBefore(String id) {
        return !compiled.add(id);
    }

    /** Whether the pool's deadline killed it. */
    boolean wasKilled() {
        return killed;
    }

    boolean isAlive() {
        return !killed && process.isAlive();
    }

    /** The runner's process id. */
    long pid() {
        return process.pid();
    }

    /**
     * The exit code, waiting up to {@link #EXIT_WAIT_SECONDS} for the process to end; -1 if it has not.
     * (A runner that ran out of heap has closed its output and is exiting, but a JVM tearing down a full
     * heap at a low CPU priority on a busy machine can take more than a second to do it.)
     */
    int exitCode() {
        try {
            return process.waitFor(EXIT_WAIT_SECONDS, TimeUnit.SECONDS) ? process.exitValue() : -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    /** Kills the process (and any it started: the shell wrapper's exec leaves none). */
    void kill() {
        killed = true;
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
    }

    /** Ends the runner: closes its input and kills it (it holds nothing worth waiting for). */
    void close() {
        try {
            out.close();
        } catch (IOException e) {
            // gone already
        }
        kill();
    }
}

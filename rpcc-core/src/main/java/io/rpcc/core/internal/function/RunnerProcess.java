package io.rpcc.core.internal.function;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One function-runner process of a {@link FunctionRunnerPool}: started with its setup frame, then
 * asked one invocation at a time; killed (with its whole process tree) when an answer does not come
 * in time.
 */
final class RunnerProcess {
    private final Process process;
    private final DataOutputStream out;
    private final DataInputStream in;
    /** The functions (ids) this runner has compiled: their invocations need no compile allowance. */
    private final Set<String> compiled = new HashSet<>();
    private volatile boolean killed;

    private RunnerProcess(Process process) {
        this.process = process;
        this.out = new DataOutputStream(new BufferedOutputStream(process.getOutputStream(), 1 << 16));
        this.in = new DataInputStream(new BufferedInputStream(process.getInputStream(), 1 << 16));
    }

    /** Starts a runner with {@code command}, sends {@code setup} and waits up to {@code timeoutMillis} for it to be ready. */
    static RunnerProcess start(List<String> command, byte[] setup, long timeoutMillis, ScheduledExecutorService timer)
            throws IOException {
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.redirectError(ProcessBuilder.Redirect.DISCARD);
        pb.environment().put("MALLOC_ARENA_MAX", "2"); // fewer malloc arenas: less address space under ulimit -v
        RunnerProcess r = new RunnerProcess(pb.start());
        try {
            RunnerProtocol.writeFrame(r.out, setup, setup.length);
            r.call(null, TimeUnit.MILLISECONDS.toNanos(timeoutMillis), timer); // the ready frame
        } catch (IOException e) {
            r.kill();
            throw new IOException("the function runner did not start: " + e.getMessage()
                    + (r.killed ? " (not ready within " + timeoutMillis + " ms)" : exitNote(r.process)), e);
        }
        return r;
    }

    private static String exitNote(Process p) {
        try {
            return p.waitFor(2, TimeUnit.SECONDS) ? " (it exited with " + p.exitValue() + ")" : "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
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

    /** The exit code, waiting up to a second for the process to end; -1 if it has not. */
    int exitCode() {
        try {
            return process.waitFor(1, TimeUnit.SECONDS) ? process.exitValue() : -1;
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

package io.rpcc.core.internal.function;

import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.NextHop;
import io.rpcc.core.SandboxLimits;
import io.rpcc.core.TypeRegistry;
import io.rpcc.core.internal.wire.HopFailure;
import io.rpcc.core.internal.wire.Serialization;
import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's pool of function-runner processes ({@link FunctionRunnerMain}): the Java chaining
 * functions of chains the node does not trust run there ({@link io.rpcc.core.FunctionIsolation}),
 * each invocation alone in a runner JVM with a small heap ({@code -XX:+ExitOnOutOfMemoryError}), one
 * CPU, and, where {@code /bin/sh} has {@code ulimit}, operating-system limits on its CPU time and
 * address space, at a lower CPU priority than the node ({@code nice}). The node kills a runner
 * whose answer has not come by the invocation's deadline (the
 * sandbox's wall time, plus a compile allowance the first time a runner meets a function) and one
 * the sandbox inside it gave up on; killed or dead runners are replaced. Idle runners are kept
 * started ({@code spares}) so that invocations do not wait for a JVM to start; at most
 * {@code runners} invocations run at once and at most {@code maxQueued} wait, more are refused with
 * a retryable failure. Runners and queue are shared fairly between the parties that ask
 * ({@link RunnerShares}): one party never holds every runner, nor more than a quarter of the queue.
 */
@io.rpcc.core.spi.EngineSpi
public final class FunctionRunnerPool implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(FunctionRunnerPool.class);
    /** How long a runner may take to start. */
    static final long START_TIMEOUT_MILLIS = 60_000;
    /** Time allowed past the sandbox's wall time for the round trip. */
    static final long GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(1_000);
    /** Time allowed for a runner's first compilation of a function. */
    static final long COMPILE_ALLOWANCE_NANOS = TimeUnit.SECONDS.toNanos(30);
    /** A runner that has used this much CPU time is retired (its OS limit is twice as much). */
    static final Duration RETIRE_AFTER_CPU = Duration.ofMinutes(5);
    /** How much lower than the node's the runners' CPU priority is ({@code nice -n}). */
    static final int RUNNER_NICENESS = 10;
    /** Exit code of a runner that ran out of heap ({@code -XX:+ExitOnOutOfMemoryError}). */
    static final int EXIT_OUT_OF_MEMORY = 3;

    /**
     * Counters.
     *
     * @param started runners started
     * @param killed runners killed at a deadline, or that died or were retired after an invocation
     * @param idle runners started and waiting
     * @param running invocations running in runners
     * @param refused invocations refused for a full queue
     */
    public record Stats(long started, long killed, int idle, int running, long refused) {
    }

    private final RunnerPoolSettings settings;
    private final SandboxLimits limits;
    private final Serialization serialization;
    private final List<String> command;
    private final byte[] setup;
    private final String node;
    private final ConcurrentLinkedDeque<RunnerProcess> idle = new ConcurrentLinkedDeque<>();
    /** Runners running an invocation now: killed when the pool closes (their deadlines' timer stops with it). */
    private final java.util.Set<RunnerProcess> busy = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private final RunnerShares shares;
    private final AtomicInteger starting = new AtomicInteger();
    private final AtomicLong started = new AtomicLong();
    private final AtomicLong killed = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    private final ScheduledExecutorService timer;
    private volatile boolean closed;
    /** Whether the last start of a spare failed (its warning is logged once until a runner starts). */
    private volatile boolean startFailing;

    /**
     * A pool for node {@code node}, whose runners load the node's classes (its class path, and
     * {@code loader}'s jars), register {@code types} and run functions within {@code limits}.
     */
    public FunctionRunnerPool(String node, RunnerPoolSettings settings, TypeRegistry types, SandboxLimits limits,
                              int maxSourceChars, ClassLoader loader) {
        this.node = node;
        this.settings = settings;
        this.limits = limits;
        this.serialization = new Serialization(types);
        this.shares = new RunnerShares(settings.runners(), settings.maxQueued());
        List<String> launcher = launcher(loader);
        this.command = command(settings, classPath(loader), launcher);
        this.setup = setup(types, limits, maxSourceChars);
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "rpcc-function-runners-" + node);
            t.setDaemon(true);
            return t;
        });
        log.info("node '{}': Java chaining functions run in function-runner processes: at most {} at once, {} spare(s)"
                + " kept started, {} waiting, {} MiB heaps; runner main class {}", node, settings.runners(),
                settings.spares(), settings.maxQueued(), settings.heapMegabytes(), launcher.getLast());
        fill();
    }

    /**
     * Runs the function {@code source} (its full text) in a runner on {@code state} and
     * {@code result}, handing what it wrote to its console and its partial replies to
     * {@code console} and {@code preturn}; {@code party} is who asks (see {@link RunnerShares}).
     *
     * @throws HopFailure what the function threw, its sandbox violation, a runner killed at its
     *     deadline or dead of its heap (a sandbox violation), or a full queue (retryable)
     */
    NextHop invoke(ChainingFunctionSource source, String party, RunnerProtocol.Where where, ChainState state, Object result,
                          Consumer<String> console, Consumer<Object> preturn) {
        byte[] request = encode(source, where, state, result);
        acquire(source, party);
        RunnerProcess runner = null;
        try {
            runner = take(source.id());
            busy.add(runner);
            if (closed) { // the pool closed as it was taken: close() may have missed it
                runner.kill();
            }
            boolean compiled = runner.compiledBefore(source.id());
            long timeout = limits.wallTime().toNanos() + GRACE_NANOS + (compiled ? 0 : COMPILE_ALLOWANCE_NANOS);
            byte[] answer;
            try {
                answer = runner.call(request, timeout, timer);
            } catch (IOException e) {
                throw died(runner, source, timeout);
            }
            busy.remove(runner);
            RunnerProtocol.Response response = serialization.withKryo(k -> RunnerProtocol.readResponse(k, new Input(answer)));
            log.debug("node '{}': chaining function ({}) ran in function runner pid {}", node,
                    FunctionRuntime.shortId(source), runner.pid());
            response.console().forEach(console);
            response.replies().forEach(preturn);
            if (response.retire() || runner.wasKilled() || closed) {
                discard(runner);
            } else if (cpuUsed(runner).compareTo(RETIRE_AFTER_CPU) > 0) {
                discard(runner);
            } else {
                idle.addFirst(runner);
                if (closed && idle.remove(runner)) { // the pool closed meanwhile
                    discard(runner);
                }
            }
            runner = null;
            if (response.failure() != null) {
                HopFailure f = response.failure();
                throw !response.retire() ? f : new HopFailure(f.code(), f.exceptionName(), f.getMessage()
                        + "; it ran in a function runner of node '" + node + "', which was ended and replaced", f.details(),
                        f.fields(), f.getCause());
            }
            return response.next();
        } finally {
            if (runner != null) {
                busy.remove(runner);
                discard(runner);
            }
            shares.release(party);
            fill();
        }
    }

    private static Duration cpuUsed(RunnerProcess runner) {
        return ProcessHandle.of(runner.pid()).flatMap(h -> h.info().totalCpuDuration()).orElse(Duration.ZERO);
    }

    private byte[] encode(ChainingFunctionSource source, RunnerProtocol.Where where, ChainState state, Object result) {
        Output out = new Output(4096, RunnerProtocol.MAX_FRAME);
        try {
            serialization.withKryo(k -> {
                RunnerProtocol.writeRequest(k, out, new RunnerProtocol.Request(source, where, state, result));
                return null;
            });
        } catch (RuntimeException e) {
            throw new HopFailure(ChainErrorCode.CHAINING_FUNCTION_FAILED, "chaining function (" + FunctionRuntime.shortId(source)
                    + ") at node '" + node + "': its state or result cannot be handed to a function runner: "
                    + e.getMessage() + "; register the types of chain state and results in the TypeRegistry", e);
        }
        return out.toBytes();
    }

    /** Takes a slot to run in for {@code party}, waiting in the bounded queue if there is none. */
    private void acquire(ChainingFunctionSource source, String party) {
        if (closed) {
            throw new HopFailure(ChainErrorCode.NODE_CLOSED, "node '" + node + "' is closed");
        }
        RunnerShares.Outcome outcome;
        try {
            outcome = shares.acquire(party, limits.wallTime().toNanos() + GRACE_NANOS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new HopFailure(ChainErrorCode.CANCELLED, "interrupted while waiting for a function runner");
        }
        if (outcome != RunnerShares.Outcome.GRANTED) {
            throw full(source, party);
        }
    }

    private HopFailure full(ChainingFunctionSource source, String party) {
        refused.incrementAndGet();
        return TransientFailure.of(ChainErrorCode.CHAINING_FUNCTION_FAILED, "chaining function ("
                + FunctionRuntime.shortId(source) + ") was not run: node '" + node + "' has its " + settings.runners()
                + " function runners busy, and " + settings.maxQueued() + " invocations waiting or " + shares.perPartyQueued()
                + " of " + party + "'s (its share of the queue; the limits: rpcc.functions.java.runners and"
                + " rpcc.functions.java.runner-queue); retry later");
    }

    /**
     * An idle, live runner that has compiled function {@code id} if there is one (so a function stays
     * with the runners that know it, and a runner killed and replaced costs a compilation only to the
     * functions that ran there), else another idle one, else a new one.
     */
    private RunnerProcess take(String id) {
        for (RunnerProcess r : idle) {
            if (r.hasCompiled(id) && r.isAlive() && idle.remove(r)) {
                return r;
            }
        }
        RunnerProcess r;
        while ((r = idle.pollFirst()) != null) {
            if (r.isAlive()) {
                return r;
            }
            discard(r);
        }
        try {
            return start();
        } catch (IOException e) {
            log.warn("node '{}': a function runner did not start: {}", node, details(e));
            throw TransientFailure.of(new HopFailure(ChainErrorCode.CHAINING_FUNCTION_FAILED, "node '" + node
                    + "' could not start a function runner: " + e.getMessage() + " (the node's log says more)"));
        }
    }

    private RunnerProcess start() throws IOException {
        RunnerProcess r = RunnerProcess.start(command, setup, START_TIMEOUT_MILLIS, timer);
        long n = started.incrementAndGet();
        startFailing = false;
        log.debug("node '{}': function runner pid {} started ({} so far)", node, r.pid(), n);
        return r;
    }

    /** Starts runners in the background until {@code spares} are idle (or starting). */
    private void fill() {
        while (!closed) {
            int want = settings.spares() - idle.size() - starting.get();
            if (want <= 0 || !startingOneMore()) {
                return;
            }
            Thread.ofPlatform().daemon().name("rpcc-function-runner-start-" + node).start(() -> {
                try {
                    RunnerProcess r = start();
                    idle.addLast(r);
                    if (closed && idle.remove(r)) {
                        r.close(); // the pool closed while it started (close() may have emptied idle before)
                    }
                } catch (RuntimeException e) {
                    if (!closed) { // (else the pool closed under it, its timer refusing the start's wait)
                        log.warn("node '{}': starting a spare function runner failed", node, e);
                    }
                } catch (IOException e) {
                    // the next invocation starts one itself, and reports why not; said once until one starts
                    if (!startFailing) {
                        startFailing = true;
                        log.warn("node '{}': a spare function runner did not start: {}", node, details(e));
                    }
                } finally {
                    starting.decrementAndGet();
                }
            });
        }
    }

    /** Why a runner did not start, for the node's log: the reason, the runner's last error output, its command. */
    private String details(IOException e) {
        String errors = e instanceof RunnerProcess.StartFailure f ? f.errorOutput() : "";
        return e.getMessage() + (errors.isEmpty() ? "" : "; its standard error ended with: " + errors)
                + "; its command: " + String.join(" ", command);
    }

    private boolean startingOneMore() {
        int now = starting.get();
        return now < settings.spares() && starting.compareAndSet(now, now + 1);
    }

    private void discard(RunnerProcess r) {
        killed.incrementAndGet();
        r.kill();
    }

    /** The failure of an invocation whose runner died or was killed before it answered. */
    private HopFailure died(RunnerProcess runner, ChainingFunctionSource source, long timeoutNanos) {
        String what = "chaining function (" + FunctionRuntime.shortId(source) + ") at node '" + node + "'";
        if (closed) {
            return new HopFailure(ChainErrorCode.NODE_CLOSED, what + " was still running when the node closed; its"
                    + " function runner was ended");
        }
        if (runner.wasKilled()) {
            return HopFailure.sandboxViolation("wall-time", what + " ran for more than "
                    + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms in its function runner; the runner was killed"
                    + " and replaced", false, null);
        }
        int exit = runner.exitCode();
        if (exit == EXIT_OUT_OF_MEMORY) {
            return HopFailure.sandboxViolation("memory", what + " ran its function runner out of its "
                    + settings.heapMegabytes() + " MiB heap; the runner was replaced", false, null);
        }
        if (exit == 128 + 24 || exit == 128 + 9) { // SIGXCPU (ulimit -t), SIGKILL
            return HopFailure.sandboxViolation("cpu-time", what + " was ended by the operating system's limits on its"
                    + " function runner (exit " + exit + "); the runner was replaced", false, null);
        }
        return new HopFailure(ChainErrorCode.CHAINING_FUNCTION_FAILED, what + ": its function runner died (exit "
                + exit + ") before it answered; the runner was replaced");
    }

    /**
     * Waits up to {@code millis} for the pool's spares to be started and warm (idle), as when it has
     * just started; true if they are, false on the timeout, or at once if starting one failed (the
     * first invocation that needs one reports why) or the pool closed.
     */
    boolean awaitSpares(long millis) throws InterruptedException {
        long end = System.nanoTime() + millis * 1_000_000;
        while (idle.size() < settings.spares()) {
            if (startFailing || closed || System.nanoTime() - end >= 0) {
                return false;
            }
            Thread.sleep(10);
        }
        return true;
    }

    /** Counters. */
    public Stats stats() {
        return new Stats(started.get(), killed.get(), idle.size(), shares.inUse(),
                refused.get());
    }

    /** The process ids of the runners alive now (idle ones; for tests and operators). */
    public List<Long> idlePids() {
        return idle.stream().map(RunnerProcess::pid).toList();
    }

    /** The process ids of the runners running an invocation now (for tests and operators). */
    public List<Long> busyPids() {
        return busy.stream().map(RunnerProcess::pid).toList();
    }

    /**
     * Ends every runner: idle ones, and running ones too (their invocations fail as the node is
     * closed), since the timer that enforces their wall time stops with the pool and a function
     * stuck in an endless loop would otherwise keep its process spinning.
     */
    @Override
    public void close() {
        closed = true;
        RunnerProcess r;
        while ((r = idle.pollFirst()) != null) {
            r.close();
        }
        for (RunnerProcess running : busy) {
            running.kill();
        }
        timer.shutdownNow();
    }

    private static byte[] setup(TypeRegistry types, SandboxLimits limits, int maxSourceChars) {
        Output out = new Output(4096, RunnerProtocol.MAX_FRAME);
        out.writeVarLong(limits.cpuTime().toNanos(), true);
        out.writeVarLong(limits.allocatedBytes(), true);
        out.writeVarLong(limits.wallTime().toNanos(), true);
        out.writeVarInt(maxSourceChars, true);
        out.writeVarInt(types.registrations().size(), true);
        for (TypeRegistry.Registration r : types.registrations()) {
            out.writeString(r.type().getName());
            out.writeVarInt(r.id(), true);
            out.writeString(r.serializer() == null ? null : r.serializer().getClass().getName());
        }
        return out.toBytes();
    }

    /** The node's class path, and the jars and folders of {@code loader} and its parents (a standalone node's service jars). */
    static String classPath(ClassLoader loader) {
        Set<String> entries = new LinkedHashSet<>(List.of(System.getProperty("java.class.path", "").split(File.pathSeparator)));
        List<ClassLoader> chain = new ArrayList<>();
        for (ClassLoader l = loader; l != null; l = l.getParent()) {
            chain.addFirst(l);
        }
        for (ClassLoader l : chain) {
            if (l instanceof URLClassLoader u) {
                for (URL url : u.getURLs()) {
                    if ("file".equals(url.getProtocol())) {
                        try {
                            entries.add(Path.of(url.toURI()).toString());
                        } catch (URISyntaxException | IllegalArgumentException e) {
                            // not a plain file: left out
                        }
                    }
                }
            }
        }
        entries.remove("");
        return String.join(File.pathSeparator, entries);
    }

    /**
     * The main class that starts a runner: {@link FunctionRunnerMain}, or, for a node inside a Spring
     * Boot jar (its class loader is Boot's, its class path the jar), Boot's {@code PropertiesLauncher}
     * told to run {@link FunctionRunnerMain} ({@code -Dloader.main}), so that the runner sees the jar's
     * nested classes and libraries as the node does.
     */
    static List<String> launcher(ClassLoader loader) {
        for (ClassLoader l = loader; l != null; l = l.getParent()) {
            String name = l.getClass().getName();
            if (name.startsWith("org.springframework.boot.loader.")) {
                String pkg = name.startsWith("org.springframework.boot.loader.launch.")
                        ? "org.springframework.boot.loader.launch." : "org.springframework.boot.loader.";
                return List.of("-Dloader.main=" + FunctionRunnerMain.class.getName(), pkg + "PropertiesLauncher");
            }
        }
        return List.of(FunctionRunnerMain.class.getName());
    }

    private static List<String> command(RunnerPoolSettings settings, String classPath, List<String> launcher) {
        String java = ProcessHandle.current().info().command()
                .filter(c -> c.endsWith("java") || c.endsWith("java.exe"))
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> jvm = new ArrayList<>(List.of(java, "-Xmx" + settings.heapMegabytes() + "m",
                "-Xms" + Math.min(32, settings.heapMegabytes()) + "m", "-Xss1m", "-XX:+UseSerialGC",
                "-XX:ActiveProcessorCount=1", "-XX:TieredStopAtLevel=1", "-XX:+ExitOnOutOfMemoryError",
                "-XX:MaxMetaspaceSize=128m", "-XX:ReservedCodeCacheSize=48m", "-XX:CompressedClassSpaceSize=64m",
                "-XX:MaxDirectMemorySize=16m", "-XX:-UsePerfData", "-Djava.awt.headless=true",
                "-cp", classPath));
        jvm.addAll(launcher);
        Path sh = Path.of("/bin/sh");
        if (!Files.isExecutable(sh) || System.getProperty("os.name", "").toLowerCase().startsWith("windows")) {
            return jvm; // no ulimit: the pool's deadline and the JVM's own heap limit only
        }
        long cpuSeconds = RETIRE_AFTER_CPU.toSeconds() * 2;
        long addressKb = (settings.heapMegabytes() + 2048L) * 1024;
        // at a lower CPU priority than the node (nice, where there is one): a function that spins, or a
        // runner starting, takes the CPU the node's own threads leave
        List<String> wrapped = new ArrayList<>(List.of(sh.toString(), "-c",
                "ulimit -t " + cpuSeconds + " && ulimit -v " + addressKb + " && { command -v nice >/dev/null 2>&1"
                        + " && exec nice -n " + RUNNER_NICENESS + " \"$0\" \"$@\"; exec \"$0\" \"$@\"; }"));
        wrapped.addAll(jvm);
        return wrapped;
    }
}

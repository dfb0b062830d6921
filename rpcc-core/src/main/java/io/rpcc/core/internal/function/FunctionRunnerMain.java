package io.rpcc.core.internal.function;

import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import io.rpcc.core.BranchId;
import io.rpcc.core.ChainContext;
import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.ChainState;
import io.rpcc.core.ConsoleLine;
import io.rpcc.core.Metadata;
import io.rpcc.core.NextHop;
import io.rpcc.core.SandboxLimits;
import io.rpcc.core.TypeRegistry;
import io.rpcc.core.VirtualConsole;
import io.rpcc.core.internal.wire.HopFailure;
import io.rpcc.core.internal.wire.Serialization;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

/**
 * The main class of a function-runner process ({@link FunctionRunnerPool}): reads its setup (the
 * node's sandbox limits and registered types) from standard input, compiles and runs the chaining
 * functions the node sends, one at a time, in the same bytecode sandbox as in-process functions,
 * and answers each with its next hop or failure ({@link RunnerProtocol}). Standard output carries
 * only frames (what a function or library prints goes to standard error). An invocation the
 * sandbox abandons (stuck in a JDK call) is answered at once and the process halts: its stuck
 * thread ends with it.
 */
@io.rpcc.core.spi.EngineSpi
public final class FunctionRunnerMain {
    private FunctionRunnerMain() {
    }

    /** Runs the runner until its standard input closes. */
    public static void main(String[] args) throws Exception {
        DataInputStream in = new DataInputStream(new BufferedInputStream(System.in, 1 << 16));
        DataOutputStream out = new DataOutputStream(new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 16));
        System.setOut(System.err);
        Input setup = new Input(RunnerProtocol.readFrame(in));
        SandboxLimits limits = new SandboxLimits(Duration.ofNanos(setup.readVarLong(true)), setup.readVarLong(true),
                Duration.ofNanos(setup.readVarLong(true)));
        int maxSourceChars = setup.readVarInt(true);
        int n = setup.readVarInt(true);
        TypeRegistry.Builder types = TypeRegistry.builder();
        // the loader that loaded this class: the system class loader, or inside a Spring Boot jar Boot's
        // launched class loader, which alone sees the jar's BOOT-INF/classes and BOOT-INF/lib
        ClassLoader loader = FunctionRunnerMain.class.getClassLoader();
        for (int i = 0; i < n; i++) {
            register(types, Class.forName(setup.readString(), false, loader), setup.readVarInt(true), setup.readString(),
                    loader);
        }
        TypeRegistry registry = types.build();
        Serialization serialization = new Serialization(registry);
        FunctionRuntime runtime = FunctionRuntime.forNode(registry, limits, 64, maxSourceChars, 4, loader).open();
        warmUp(runtime);
        new FunctionRunnerMain.Loop(in, out, serialization, runtime).run();
    }

    /**
     * Compiles and runs a trivial function before the runner says it is ready: javac's first
     * compilation in a JVM takes about a second (more on a busy machine), which a spare pays while
     * it waits rather than the first chain it serves.
     */
    private static void warmUp(FunctionRuntime runtime) {
        try {
            var warm = runtime.load(io.rpcc.core.ChainingFunctionSource.java("""
                    import io.rpcc.core.*;
                    public class RunnerWarmUp implements ChainingFunction {
                        public NextHop apply(ChainState state, Object result) {
                            return NextHop.end(String.valueOf(result).length());
                        }
                    }
                    """));
            runtime.invoke(warm.function(), ChainState.empty(), "warm");
        } catch (RuntimeException e) {
            // a runner that cannot compile says so on its first real function
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static void register(TypeRegistry.Builder types, Class<?> type, int id, String serializer, ClassLoader loader)
            throws Exception {
        if (serializer == null) {
            if (id == TypeRegistry.nameDerivedId(type)) {
                types.register(type);
            } else {
                types.register(type, id);
            }
            return;
        }
        var ctor = Class.forName(serializer, false, loader).getDeclaredConstructor();
        ctor.setAccessible(true);
        Serializer s = (Serializer) ctor.newInstance();
        if (id == TypeRegistry.nameDerivedId(type)) {
            types.register((Class) type, s);
        } else {
            types.register((Class) type, id, s);
        }
    }

    /** The request loop. */
    private record Loop(DataInputStream in, DataOutputStream out, Serialization serialization, FunctionRuntime runtime) {
        void run() throws IOException {
            RunnerProtocol.writeFrame(out, new byte[0], 0); // ready
            while (true) {
                byte[] frame;
                try {
                    frame = RunnerProtocol.readFrame(in);
                } catch (EOFException e) {
                    return; // the node closed the pool
                }
                RunnerProtocol.Request request = serialization.withKryo(k -> RunnerProtocol.readRequest(k, new Input(frame)));
                respond(invoke(request));
            }
        }

        private RunnerProtocol.Response invoke(RunnerProtocol.Request r) {
            List<ConsoleLine> lines = Collections.synchronizedList(new ArrayList<>());
            List<Object> replies = Collections.synchronizedList(new ArrayList<>());
            RunnerContext context = new RunnerContext(r.where(),
                    new VirtualConsole(r.where().hop(), r.where().node(), "chaining", lines), replies);
            NextHop next = null;
            HopFailure failure = null;
            try (var scope = context.push()) {
                FunctionRuntime.Loaded loaded = runtime.load(r.source());
                next = runtime.invoke(loaded.function(), r.state(), r.result(), abandoned -> {
                    // the sandbox gave up on a function stuck in a JDK call: answer now, and end the process
                    // (and the stuck thread with it)
                    respond(new RunnerProtocol.Response(null, abandoned, texts(lines), List.of(), true));
                    Runtime.getRuntime().halt(3);
                });
            } catch (HopFailure f) {
                failure = f;
            } catch (RuntimeException | StackOverflowError e) {
                failure = new HopFailure(ChainErrorCode.CHAINING_FUNCTION_FAILED, "chaining function failed in its runner: " + e);
            }
            return new RunnerProtocol.Response(next, failure, texts(lines), new ArrayList<>(replies), false);
        }

        private static List<String> texts(List<ConsoleLine> lines) {
            synchronized (lines) {
                return lines.stream().map(ConsoleLine::text).toList();
            }
        }

        private synchronized void respond(RunnerProtocol.Response response) {
            Output body = new Output(4096, RunnerProtocol.MAX_FRAME);
            try {
                serialization.withKryo(k -> {
                    RunnerProtocol.writeResponse(k, body, response);
                    return null;
                });
            } catch (RuntimeException e) { // a value of a type the node did not register, or too large
                body.reset();
                HopFailure f = new HopFailure(ChainErrorCode.CHAINING_FUNCTION_FAILED, "the chaining function's"
                        + " next hop cannot be sent back from its runner: " + e.getMessage());
                serialization.withKryo(k -> {
                    RunnerProtocol.writeResponse(k, body, new RunnerProtocol.Response(null, f, List.of(), List.of(),
                            response.retire()));
                    return null;
                });
            }
            try {
                RunnerProtocol.writeFrame(out, body.getBuffer(), body.position());
            } catch (IOException e) {
                Runtime.getRuntime().halt(4); // the node has gone
            }
        }
    }

    /** The {@link ChainContext} a function sees in a runner: where it runs; console and replies collected. */
    private record RunnerContext(RunnerProtocol.Where where, VirtualConsole console, List<Object> replies)
            implements ChainContext {
        @Override
        public String chainId() {
            return where.chainId();
        }

        @Override
        public String originator() {
            return where.originator();
        }

        @Override
        public int hop() {
            return where.hop();
        }

        @Override
        public String node() {
            return where.node();
        }

        @Override
        public Instant deadline() {
            return Instant.MAX;
        }

        @Override
        public boolean isCancelled() {
            return false;
        }

        @Override
        public void preturn(Object reply) {
            replies.add(reply);
        }

        @Override
        public Runnable wrap(Runnable task) {
            throw unsupported();
        }

        @Override
        public <V> Callable<V> wrap(Callable<V> task) {
            throw unsupported();
        }

        @Override
        public Executor executor(Executor executor) {
            throw unsupported();
        }

        @Override
        public <S extends CompletionStage<?>> S track(S stage) {
            throw unsupported();
        }

        @Override
        public Thread startThread(Runnable task) {
            throw unsupported();
        }

        @Override
        public Thread startVirtualThread(Runnable task) {
            throw unsupported();
        }

        @Override
        public Metadata metadata() {
            throw unsupported();
        }

        @Override
        public BranchId branch() {
            return BranchId.root();
        }

        private static UnsupportedOperationException unsupported() {
            return new UnsupportedOperationException("not available to a chaining function in a function runner");
        }
    }
}

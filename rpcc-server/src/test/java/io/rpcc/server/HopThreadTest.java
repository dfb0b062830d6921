package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Which thread a hop starts on: a virtual thread by default, a platform thread when rpcc chose the
 * executor and the hop's sandboxed Java chaining function needs one anyway (saving two hand-offs),
 * and always the user's executor when the user set one.
 */
class HopThreadTest {
    static final ChainingFunctionSource END = ChainingFunctionSource.java("""
            import io.rpcc.core.*;
            public class End implements ChainingFunction {
                public NextHop apply(ChainState state, Object result) { return NextHop.end(result); }
            }
            """);
    static Cluster cluster;
    static RpccClient client;

    @BeforeAll
    static void start() {
        cluster = new Cluster();
        cluster.server("sandboxed", b -> b.service("thread", p -> describe()));
        cluster.server("unsandboxed", b -> b.withoutSandbox().service("thread", p -> describe()));
        cluster.server("own-executor", b -> b.executor(Executors.newVirtualThreadPerTaskExecutor()).service("thread", p -> describe()));
        client = cluster.client();
    }

    @AfterAll
    static void stop() throws Exception {
        cluster.close();
    }

    private static String describe() {
        return Thread.currentThread().isVirtual() ? "virtual" : "platform";
    }

    private static Object hop(String server, ChainingFunctionSource cf) {
        return cf == null ? client.call(server, "thread", null).join().value()
                : client.runChain(server, "thread", null, cf, ChainState.empty()).value();
    }

    @Test
    void aHopWithACompiledSandboxedJavaChainingFunctionStartsOnAPlatformThread() {
        assertEquals("virtual", hop("sandboxed", END), "a hop that waits for a compilation waits on a virtual thread");
        assertEquals("platform", hop("sandboxed", END));
    }

    @Test
    void otherHopsRunOnVirtualThreads() {
        assertEquals("virtual", hop("sandboxed", null), "no chaining function");
        assertEquals("virtual", hop("unsandboxed", END), "no sandbox");
        assertEquals("virtual", hop("own-executor", END), "the user's executor is used as given");
    }
}

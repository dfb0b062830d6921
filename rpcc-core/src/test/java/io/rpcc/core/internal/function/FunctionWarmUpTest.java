package io.rpcc.core.internal.function;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.FunctionLanguage;
import io.rpcc.core.NextHop;
import io.rpcc.core.spi.CompiledFunction;
import io.rpcc.core.spi.FunctionCompiler;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The warm-up at node start: it runs in the background (the caller does not wait for a slow
 * compiler), warms every language present, survives a compiler that throws, happens once per JVM,
 * and a warm-up stopped before it finished (never interrupted) is left to the next node. (Stand-in compilers record what
 * they are asked; the real ones are warmed in every node test.)
 */
class FunctionWarmUpTest {
    /** A compiler that records what it compiles and ran, and can be held or made to fail. */
    static final class Recording implements FunctionCompiler {
        final FunctionLanguage language;
        final List<String> events = new CopyOnWriteArrayList<>();
        final CountDownLatch release;
        final boolean fail;

        Recording(FunctionLanguage language, CountDownLatch release, boolean fail) {
            this.language = language;
            this.release = release;
            this.fail = fail;
        }

        @Override
        public FunctionLanguage language() {
            return language;
        }

        @Override
        public CompiledFunction compile(ChainingFunctionSource source) {
            try {
                release.await();
            } catch (InterruptedException e) {
                events.add("interrupted");
                Thread.currentThread().interrupt();
            }
            events.add("compile");
            if (fail) {
                throw new IllegalStateException("this compiler is broken");
            }
            return new CompiledFunction() {
                @Override
                public ChainingFunctionSource source() {
                    return source;
                }

                @Override
                public NextHop invoke(ChainState state, Object result) {
                    events.add("invoke");
                    return NextHop.end(result);
                }
            };
        }
    }

    @Test
    void warmsEveryLanguageInTheBackgroundOncePerJvmAndAgainAfterAStop() throws Exception {
        CountDownLatch held = new CountDownLatch(1);
        Recording java = new Recording(FunctionLanguage.JAVA, held, true); // throws: the warm-up goes on
        Recording js = new Recording(FunctionLanguage.JS, new CountDownLatch(0), false);
        Map<FunctionLanguage, FunctionCompiler> compilers = new EnumMap<>(FunctionLanguage.class);
        compilers.put(FunctionLanguage.JAVA, java);
        compilers.put(FunctionLanguage.JS, js);

        // a first warm-up, stopped while its compiler is held: start() did not wait for it
        FunctionWarmUp first = FunctionWarmUp.start(compilers);
        assertNotNull(first);
        assertNull(FunctionWarmUp.start(compilers), "one warm-up at a time per JVM");
        first.stop();
        held.countDown();
        assertTrue(first.awaitEnd(10_000));
        assertTrue(!first.done(), "a stopped warm-up did not finish");
        assertEquals(List.of(), js.events, "no step starts after the stop");
        assertTrue(java.events.stream().filter("compile"::equals).count() <= 1, "at most the step under way finished");
        assertTrue(!java.events.contains("interrupted"), "the step under way was not interrupted (an interrupt while javac"
                + " reads ct.sym closes it for every compilation in the JVM)");
        java.events.clear();

        // the next node warms again, every language, in spite of the Java compiler's failure
        FunctionWarmUp second = FunctionWarmUp.start(compilers);
        assertNotNull(second);
        assertTrue(second.awaitEnd(10_000));
        assertTrue(second.done());
        assertEquals(List.of("compile", "invoke"), js.events);
        assertEquals(FunctionWarmUp.JAVA_COMPILES, java.events.stream().filter("compile"::equals).count());
        assertNull(FunctionWarmUp.start(compilers), "warmed: a later node warms nothing");
    }

    @Test
    void nothingToWarmWithoutCompilers() {
        assertNull(FunctionWarmUp.start(Map.of()));
    }
}

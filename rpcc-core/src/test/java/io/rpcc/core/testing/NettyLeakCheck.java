package io.rpcc.core.testing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs Netty's leak detector at PARANOID level and fails a test class if any buffer leaked while it
 * ran. Registered for every test class through JUnit's extension auto-detection (see
 * {@code junit-platform.properties}); it installs its detector factory before Netty's buffer classes
 * create their detectors.
 */
public final class NettyLeakCheck implements BeforeAllCallback, AfterAllCallback {
    private static final List<String> LEAKS = new CopyOnWriteArrayList<>();

    static {
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
        ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(new ResourceLeakDetectorFactory() {
            @Override
            public <T> ResourceLeakDetector<T> newResourceLeakDetector(Class<T> resource, int samplingInterval,
                                                                       long maxActive) {
                return new ResourceLeakDetector<>(resource, samplingInterval, maxActive) {
                    @Override
                    protected boolean needReport() {
                        return true;
                    }

                    @Override
                    protected void reportTracedLeak(String resourceType, String records) {
                        LEAKS.add("LEAK: " + resourceType + records);
                    }

                    @Override
                    protected void reportUntracedLeak(String resourceType) {
                        LEAKS.add("LEAK: " + resourceType + " (untraced)");
                    }
                };
            }
        });
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        LEAKS.clear();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        List<String> leaks = collect();
        if (!leaks.isEmpty()) {
            throw new AssertionError(leaks.size() + " Netty buffer leak(s) in " + context.getDisplayName() + ":\n"
                    + String.join("\n\n", leaks));
        }
    }

    /** Collects garbage, lets the detectors look, and returns (and forgets) what leaked since the last call. */
    public static List<String> collect() {
        for (int i = 0; i < 5; i++) {
            System.gc();
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            // Detectors report collected, unreleased buffers when the next buffer is tracked.
            for (ByteBuf b : new ByteBuf[] {PooledByteBufAllocator.DEFAULT.directBuffer(16),
                    PooledByteBufAllocator.DEFAULT.heapBuffer(16), UnpooledByteBufAllocator.DEFAULT.directBuffer(16),
                    UnpooledByteBufAllocator.DEFAULT.heapBuffer(16)}) {
                b.release();
            }
        }
        List<String> out = new ArrayList<>(LEAKS);
        LEAKS.clear();
        return out;
    }
}

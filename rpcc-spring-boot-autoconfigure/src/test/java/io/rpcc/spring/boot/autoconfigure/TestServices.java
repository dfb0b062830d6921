package io.rpcc.spring.boot.autoconfigure;

import io.rpcc.core.HopRejectedException;
import io.rpcc.core.ServiceMethod;
import io.rpcc.spring.boot.RpccService;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.aspectj.lang.ProceedingJoinPoint;
import org.aspectj.lang.annotation.Around;
import org.aspectj.lang.annotation.Aspect;

/** Service beans and an aspect for the auto-configuration tests. */
final class TestServices {
    private TestServices() {
    }

    /** A value type, registered through rpcc.types. */
    record Order(String sku, int quantity) {
    }

    /** Marks a method whose String result {@link ShoutAspect} upper-cases. */
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.METHOD)
    @interface Shout {
    }

    /** Upper-cases the results of {@link Shout} methods and counts its calls: proof that a call went through the proxy. */
    @Aspect
    static final class ShoutAspect {
        final AtomicInteger calls = new AtomicInteger();

        @Around("@annotation(io.rpcc.spring.boot.autoconfigure.TestServices.Shout)")
        Object shout(ProceedingJoinPoint call) throws Throwable {
            calls.incrementAndGet();
            return ((String) call.proceed()).toUpperCase();
        }
    }

    /** A service interface: its annotated methods are the service functions of the beans that implement it. */
    interface Pricing {
        @ServiceMethod("price")
        long price(String sku, int quantity);
    }

    /** A bean whose service functions come from its interface, one of them with two parameters. */
    @RpccService
    static class PricingService implements Pricing {
        @Override
        public long price(String sku, int quantity) {
            return sku.length() * 100L * quantity;
        }
    }

    /** A plain service bean. */
    @RpccService
    static class Inventory {
        @ServiceMethod("stock")
        int stock(Order order) {
            return order.sku().length() * order.quantity();
        }

        @ServiceMethod
        String ping() {
            return "pong";
        }

        @ServiceMethod("fail")
        String fail(String why) {
            throw new IllegalStateException(why);
        }

        @ServiceMethod("reject")
        String reject(String why) throws HopRejectedException {
            throw new HopRejectedException(why);
        }

        String notAService() {
            return "no";
        }
    }

    /** A bean that the aspect proxies with a subclass (CGLIB): its fields live in the target, not in the proxy. */
    @RpccService
    static class Greeter {
        private final String greeting = "hello ";

        @ServiceMethod("greet")
        @Shout
        String greet(String who) {
            return greeting + who;
        }
    }

    /** The interface through which a JDK proxy reaches {@link PoliteGreeter}. */
    interface Greeting {
        String greetPolitely(String who);
    }

    /** A bean that the aspect proxies with a JDK proxy (proxyTargetClass=false): its service method is on its interface. */
    @RpccService
    static class PoliteGreeter implements Greeting {
        @Override
        @ServiceMethod("greetPolitely")
        @Shout
        public String greetPolitely(String who) {
            return "good day " + who;
        }
    }

    /** A JDK-proxied bean whose service method is not on its interface: it cannot be called through the proxy. */
    @RpccService
    static class Hidden implements Greeting {
        @Override
        @Shout
        public String greetPolitely(String who) {
            return who;
        }

        @ServiceMethod("hidden")
        public String hidden(String who) {
            return who;
        }
    }

    /** Declares "ping" again. */
    @RpccService
    static class SecondPing {
        @ServiceMethod("ping")
        String ping() {
            return "pong again";
        }
    }

    /** Marked as a service but has no service method. */
    @RpccService
    static class Empty {
        String nothing() {
            return "";
        }
    }

    /** A service that holds its hop until released, to test graceful shutdown. */
    @RpccService
    static class Slow {
        final CountDownLatch entered = new CountDownLatch(1);

        @ServiceMethod("slow")
        String slow(String value) throws InterruptedException {
            entered.countDown();
            Thread.sleep(500);
            return value + " done";
        }
    }

    /** A bean with a streaming service method (its last parameter an InputStream) on a service interface. */
    interface Uploads {
        @ServiceMethod("upload")
        String upload(String name, InputStream data) throws IOException;
    }

    /** Counts the bytes of the stream it is given. */
    @RpccService
    static class UploadService implements Uploads {
        @Override
        public String upload(String name, InputStream data) throws IOException {
            long bytes = 0;
            byte[] buffer = new byte[8192];
            for (int n; (n = data.read(buffer)) >= 0; ) {
                bytes += n;
            }
            return name + ": " + bytes + " bytes";
        }
    }

    /** A streaming service method declared idempotent: refused (its data is read once). */
    @RpccService
    static class IdempotentUpload {
        @ServiceMethod(value = "upload", idempotent = true)
        public long upload(InputStream data) throws IOException {
            return data.transferTo(OutputStream.nullOutputStream());
        }
    }

    /** Counts the runs of an idempotent service method and of one that is not. */
    @RpccService
    static class Counters {
        final AtomicInteger idempotentRuns = new AtomicInteger();
        final AtomicInteger otherRuns = new AtomicInteger();

        @ServiceMethod(value = "read", idempotent = true)
        public int read(int n) {
            idempotentRuns.incrementAndGet();
            return n + 1;
        }

        @ServiceMethod("write")
        public int write(int n) {
            otherRuns.incrementAndGet();
            return n + 1;
        }
    }
}

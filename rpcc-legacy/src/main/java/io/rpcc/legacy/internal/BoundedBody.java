package io.rpcc.legacy.internal;

import io.rpcc.legacy.LegacyCallException;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * A response body read into a {@code byte[]} of at most {@code limit} bytes. A response that
 * announces more ({@code Content-Length}), or that sends more than it may while it arrives
 * (chunked, or delimited by the connection's end), fails with a {@link Refusal} at that moment: the
 * subscription is cancelled, which closes the connection, and no more of it is read. A response
 * that carries both {@code Content-Length} and {@code Transfer-Encoding} fails as well (RFC 9112
 * section 6.3: its length is ambiguous), since the JDK's client would trust the length and leave the
 * rest of the body on a connection it reuses.
 */
final class BoundedBody implements HttpResponse.BodyHandler<byte[]> {
    private final long limit;

    /** A handler for bodies of at most {@code limit} bytes. */
    BoundedBody(long limit) {
        this.limit = limit;
    }

    /**
     * The response was refused: {@code status} is {@link LegacyCallException#RESPONSE_TOO_LARGE} or
     * {@link LegacyCallException#INVALID_RESPONSE}, the message says what was seen.
     */
    static final class Refusal extends IOException {
        private static final long serialVersionUID = 1L;
        final String status;

        Refusal(String status, String message) {
            super(message);
            this.status = status;
        }
    }

    /** {@code bytes} in the largest binary unit that divides it ({@code 16 MiB}), else in bytes. */
    static String size(long bytes) {
        String[] units = {"KiB", "MiB", "GiB"};
        for (int i = units.length; i > 0; i--) {
            long scale = 1L << (10 * i);
            if (bytes >= scale && bytes % scale == 0) {
                return bytes / scale + " " + units[i - 1];
            }
        }
        return bytes + " bytes";
    }

    @Override
    public HttpResponse.BodySubscriber<byte[]> apply(HttpResponse.ResponseInfo info) {
        OptionalLong announced = info.headers().firstValueAsLong("content-length");
        if (announced.isPresent() && info.headers().firstValue("transfer-encoding").isPresent()) {
            return new Refused(new Refusal(LegacyCallException.INVALID_RESPONSE, "the response has both Content-Length (" + announced.getAsLong()
                    + ") and Transfer-Encoding (" + info.headers().firstValue("transfer-encoding").orElseThrow()
                    + "), so its length is ambiguous; it was not read"));
        }
        if (announced.isPresent() && announced.getAsLong() > limit) {
            return new Refused(new Refusal(LegacyCallException.RESPONSE_TOO_LARGE, "it announced " + size(announced.getAsLong())
                    + " (Content-Length) and was not read"));
        }
        return new Collecting(limit);
    }

    /** Reads up to the limit, then cancels. */
    private static final class Collecting implements HttpResponse.BodySubscriber<byte[]> {
        private final long limit;
        private final List<byte[]> chunks = new ArrayList<>();
        private long size;
        private final CompletableFuture<byte[]> body = new CompletableFuture<>();
        private Flow.Subscription subscription;

        Collecting(long limit) {
            this.limit = limit;
        }

        @Override
        public CompletionStage<byte[]> getBody() {
            return body;
        }

        @Override
        public void onSubscribe(Flow.Subscription s) {
            subscription = s;
            s.request(1);
        }

        @Override
        public void onNext(List<ByteBuffer> buffers) {
            if (body.isDone()) {
                return;
            }
            for (ByteBuffer b : buffers) {
                size += b.remaining();
            }
            if (size > limit) {
                subscription.cancel();
                chunks.clear();
                body.completeExceptionally(new Refusal(LegacyCallException.RESPONSE_TOO_LARGE, "more than " + size(limit)
                        + " arrived, and the rest was not read"));
                return;
            }
            for (ByteBuffer b : buffers) {
                byte[] chunk = new byte[b.remaining()];
                b.get(chunk);
                chunks.add(chunk);
            }
            subscription.request(1);
        }

        @Override
        public void onError(Throwable t) {
            body.completeExceptionally(t);
        }

        @Override
        public void onComplete() {
            if (body.isDone()) {
                return;
            }
            byte[] all = new byte[(int) size];
            int at = 0;
            for (byte[] chunk : chunks) {
                System.arraycopy(chunk, 0, all, at, chunk.length);
                at += chunk.length;
            }
            chunks.clear();
            body.complete(all);
        }
    }

    /** Reads nothing: fails at once. */
    private record Refused(Refusal failure) implements HttpResponse.BodySubscriber<byte[]> {
        @Override
        public CompletionStage<byte[]> getBody() {
            return CompletableFuture.failedFuture(failure);
        }

        @Override
        public void onSubscribe(Flow.Subscription s) {
            s.cancel();
        }

        @Override
        public void onNext(List<ByteBuffer> item) {
        }

        @Override
        public void onError(Throwable t) {
        }

        @Override
        public void onComplete() {
        }
    }
}

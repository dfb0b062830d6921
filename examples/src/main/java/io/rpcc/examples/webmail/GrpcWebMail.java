package io.rpcc.examples.webmail;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerBuilder;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import io.rpcc.testkit.WanEmulator;
import io.rpcc.testkit.WanTopology;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The web mail's four servers over gRPC-java (unary calls, HTTP/2, grpc-netty-shaded), placed in
 * the same sites and behind the same emulated links as the rpcc variants: the second plain-RPC
 * baseline of figure 14. Messages are encoded by hand (length-prefixed UTF-8), so that neither
 * side pays for a general serializer the other lacks.
 */
final class GrpcWebMail implements AutoCloseable {
    private static final MethodDescriptor.Marshaller<String> STRING = marshaller(
            (out, s) -> writeString(out, s), GrpcWebMail::readString);
    private static final MethodDescriptor.Marshaller<Boolean> BOOLEAN = marshaller(
            DataOutputStream::writeBoolean, DataInputStream::readBoolean);
    private static final MethodDescriptor.Marshaller<Mailbox> MAILBOX = marshaller(GrpcWebMail::writeMailbox,
            GrpcWebMail::readMailbox);

    static final MethodDescriptor<String, String> LOGIN = unary("webmail.Auth/Login", STRING, STRING);
    static final MethodDescriptor<String, Boolean> VERIFY = unary("webmail.Auth/Verify", STRING, BOOLEAN);
    static final MethodDescriptor<String, Mailbox> FETCH = unary("webmail.Storage/Fetch", STRING, MAILBOX);
    static final MethodDescriptor<Mailbox, Mailbox> DECORATE = unary("webmail.Ads/Decorate", MAILBOX, MAILBOX);
    /** The request is {@code cookie + "\n" + "user/kb"}. */
    static final MethodDescriptor<String, Mailbox> INBOX = unary("webmail.Mail/Inbox", STRING, MAILBOX);

    private final List<Server> servers = new ArrayList<>();
    private final List<ManagedChannel> channels = new ArrayList<>();
    private final ManagedChannel browserToMail;
    private final ManagedChannel browserToAuth;

    /** Starts the four servers and connects them through {@code wan} as section 5.4 places them. */
    GrpcWebMail(WanEmulator wan) throws IOException {
        Server auth = start(ServerServiceDefinition.builder("webmail.Auth")
                .addMethod(LOGIN, unaryHandler(MailServices::login))
                .addMethod(VERIFY, unaryHandler(MailServices::verify)).build());
        Server storage = start(ServerServiceDefinition.builder("webmail.Storage")
                .addMethod(FETCH, unaryHandler(MailServices::fetch)).build());
        Server ads = start(ServerServiceDefinition.builder("webmail.Ads")
                .addMethod(DECORATE, unaryHandler(MailServices::decorate)).build());
        ManagedChannel toAuth = channel(wan, WanTopology.REDMOND, WanTopology.REDMOND, auth);
        ManagedChannel toStorage = channel(wan, WanTopology.REDMOND, WanTopology.BEIJING, storage);
        ManagedChannel toAds = channel(wan, WanTopology.REDMOND, WanTopology.BEIJING, ads);
        Server mail = start(ServerServiceDefinition.builder("webmail.Mail")
                .addMethod(INBOX, GrpcWebMail.<String, Mailbox>unaryHandler(request -> {
                    String[] cookieAndMailbox = request.split("\n");
                    if (!ClientCalls.blockingUnaryCall(toAuth, VERIFY, CallOptions.DEFAULT, cookieAndMailbox[0])) {
                        throw new SecurityException("bad cookie");
                    }
                    Mailbox plain = ClientCalls.blockingUnaryCall(toStorage, FETCH, CallOptions.DEFAULT, cookieAndMailbox[1]);
                    return ClientCalls.blockingUnaryCall(toAds, DECORATE, CallOptions.DEFAULT, plain);
                })).build());
        browserToMail = channel(wan, WanTopology.MOUNTAIN_VIEW, WanTopology.REDMOND, mail);
        browserToAuth = channel(wan, WanTopology.MOUNTAIN_VIEW, WanTopology.REDMOND, auth);
    }

    /** A browser in Mountain View logs {@code user} in at the authentication server: its cookie. */
    String login(String user) {
        return ClientCalls.blockingUnaryCall(browserToAuth, LOGIN, CallOptions.DEFAULT, user);
    }

    /** What a browser in Mountain View sees: the mailbox with ads. */
    Mailbox inbox(String cookie, String userAndSize) {
        return ClientCalls.blockingUnaryCall(browserToMail, INBOX, CallOptions.DEFAULT, cookie + "\n" + userAndSize);
    }

    private Server start(ServerServiceDefinition service) throws IOException {
        Server s = ServerBuilder.forPort(0).addService(service).build().start();
        servers.add(s);
        return s;
    }

    private ManagedChannel channel(WanEmulator wan, String from, String to, Server target) {
        InetSocketAddress via = wan.proxy(from, to, new InetSocketAddress("127.0.0.1", target.getPort()));
        ManagedChannel c = ManagedChannelBuilder.forAddress(via.getHostString(), via.getPort()).usePlaintext()
                .maxInboundMessageSize(64 * 1024 * 1024).build();
        channels.add(c);
        return c;
    }

    @Override
    public void close() throws InterruptedException {
        for (ManagedChannel c : channels) {
            c.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
        for (Server s : servers) {
            s.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    private static <Q, R> io.grpc.ServerCallHandler<Q, R> unaryHandler(Function<Q, R> f) {
        return ServerCalls.asyncUnaryCall((request, response) -> {
            try {
                response.onNext(f.apply(request));
                response.onCompleted();
            } catch (RuntimeException e) {
                response.onError(io.grpc.Status.INTERNAL.withDescription(e.toString()).asRuntimeException());
            }
        });
    }

    private static <Q, R> MethodDescriptor<Q, R> unary(String name, MethodDescriptor.Marshaller<Q> in,
                                                      MethodDescriptor.Marshaller<R> out) {
        return MethodDescriptor.<Q, R>newBuilder().setType(MethodDescriptor.MethodType.UNARY).setFullMethodName(name)
                .setRequestMarshaller(in).setResponseMarshaller(out).build();
    }

    private interface Writer<T> {
        void write(DataOutputStream out, T value) throws IOException;
    }

    private interface Reader<T> {
        T read(DataInputStream in) throws IOException;
    }

    private static <T> MethodDescriptor.Marshaller<T> marshaller(Writer<T> writer, Reader<T> reader) {
        return new MethodDescriptor.Marshaller<>() {
            @Override
            public InputStream stream(T value) {
                ByteArrayOutputStream bytes = new ByteArrayOutputStream();
                try (DataOutputStream out = new DataOutputStream(bytes)) {
                    writer.write(out, value);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
                return new ByteArrayInputStream(bytes.toByteArray());
            }

            @Override
            public T parse(InputStream stream) {
                try (DataInputStream in = new DataInputStream(stream)) {
                    return reader.read(in);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        };
    }

    private static void writeString(DataOutputStream out, String s) throws IOException {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.writeInt(b.length);
        out.write(b);
    }

    private static String readString(DataInputStream in) throws IOException {
        return new String(in.readNBytes(in.readInt()), StandardCharsets.UTF_8);
    }

    private static void writeStrings(DataOutputStream out, List<String> xs) throws IOException {
        out.writeInt(xs.size());
        for (String x : xs) {
            writeString(out, x);
        }
    }

    private static List<String> readStrings(DataInputStream in) throws IOException {
        int n = in.readInt();
        List<String> xs = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            xs.add(readString(in));
        }
        return xs;
    }

    private static void writeMailbox(DataOutputStream out, Mailbox m) throws IOException {
        writeString(out, m.user());
        writeStrings(out, m.messages());
        writeStrings(out, m.ads());
    }

    private static Mailbox readMailbox(DataInputStream in) throws IOException {
        return new Mailbox(readString(in), readStrings(in), readStrings(in));
    }
}

package io.rpcc.benchmarks;

import io.netty.pkitesting.CertificateBuilder;
import io.netty.pkitesting.X509Bundle;
import io.rpcc.client.RpccClient;
import io.rpcc.core.BranchId;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.Metadata;
import io.rpcc.core.NodeTls;
import io.rpcc.core.StaticNameResolver;
import io.rpcc.core.internal.transport.ChainCredentials;
import io.rpcc.core.internal.wire.ChainCredential;
import io.rpcc.core.internal.wire.ChainHeader;
import io.rpcc.core.internal.wire.ChainIdentity;
import io.rpcc.core.internal.wire.ChainLimits;
import io.rpcc.core.internal.wire.ChainSecret;
import io.rpcc.core.internal.wire.ChainSoFar;
import io.rpcc.core.internal.wire.Credit;
import io.rpcc.core.internal.wire.HeartbeatBudget;
import io.rpcc.core.internal.wire.NodeAddress;
import io.rpcc.core.internal.wire.ReturnRoute;
import io.rpcc.server.RpccServer;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What chain credentials cost, side by side in one run (EC P-256 certificates of a test CA):
 *
 * <ul>
 *   <li>{@code signAndVerify}: what a new chain costs between TLS nodes: the originator signs its
 *       credential and the first hop checks it (the name, the signature), on a chain id never seen;
 *       the check of the signer's certificate chain against the trusted CA is kept per certificate
 *       (for a minute), as a node does;</li>
 *   <li>{@code verifyCached}: what every later hop of the same chain pays: the check of a credential
 *       already checked (the claims that change from hop to hop, and a lookup);</li>
 *   <li>{@code plainCallMutualTls}: one plain call, client → s1 → client, over mutual TLS (it signs
 *       and checks a credential, as every chain between TLS nodes does);</li>
 *   <li>{@code plainCallPlaintext}: the same call in plaintext (no credentials possible).</li>
 * </ul>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class CredentialBenchmark {
    private static final NodeAddress CLIENT = new NodeAddress("bench-client", "127.0.0.1", 4000);
    private static final ChainCredential.FirstHop FIRST = new ChainCredential.FirstHop(1, "s1", "echo");

    private ChainCredentials signer;
    private ChainCredentials verifier;
    private ChainHeader cachedHeader;
    private ChainCredential cached;
    private long nextChainId;
    private final StaticNameResolver tlsNames = new StaticNameResolver();
    private final StaticNameResolver plainNames = new StaticNameResolver();
    private RpccServer tlsServer;
    private RpccClient tlsClient;
    private RpccServer plainServer;
    private RpccClient plainClient;
    private final byte[] payload = new byte[64];

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        X509Bundle ca = new CertificateBuilder().subject("CN=bench CA").ecp256().setIsCertificateAuthority(true)
                .notBefore(Instant.now().minus(Duration.ofDays(1))).notAfter(Instant.now().plus(Duration.ofDays(1)))
                .buildSelfSigned();
        NodeTls clientTls = node(ca, "bench-client");
        NodeTls serverTls = node(ca, "s1");
        signer = new ChainCredentials(clientTls, ChainCredentials.DEFAULT_CLOCK_SKEW);
        verifier = new ChainCredentials(serverTls, ChainCredentials.DEFAULT_CLOCK_SKEW);
        cachedHeader = header(0, ChainHeader.NO_DEADLINE); // (one with a deadline would run past it)
        cached = signer.sign(cachedHeader, CLIENT, FIRST);
        verifyCached();
        tlsServer = RpccServer.builder("s1").resolver(tlsNames).tls(serverTls).service("echo", p -> p).build().start();
        tlsNames.register("s1", tlsServer.address());
        tlsClient = RpccClient.builder().name("bench-client").resolver(tlsNames).tls(clientTls).build().start();
        plainServer = RpccServer.builder("s1").resolver(plainNames).service("echo", p -> p).build().start();
        plainNames.register("s1", plainServer.address());
        plainClient = RpccClient.builder().name("bench-client").resolver(plainNames).build().start();
        plainCallMutualTls();
        plainCallPlaintext();
    }

    private static NodeTls node(X509Bundle ca, String name) throws Exception {
        X509Bundle cert = new CertificateBuilder().subject("CN=" + name).ecp256()
                .notBefore(Instant.now().minus(Duration.ofHours(1))).notAfter(Instant.now().plus(Duration.ofDays(1)))
                .addSanUriName("rpcc:" + name).buildIssuedBy(ca);
        return NodeTls.of(cert.getKeyPair().getPrivate(), cert.getCertificatePathList(), List.of(ca.getCertificate()));
    }

    private static ChainHeader header(long chainId, long budgetNanos) {
        return new ChainHeader(new ChainIdentity(chainId, ChainSecret.random(), CLIENT, 1),
                new ChainSoFar(1, List.of(), List.of(), List.of(), Metadata.empty()), "echo", ChainingFunctionSource.NONE,
                Credit.ONE, new ReturnRoute(CLIENT, List.of(), BranchId.root()),
                new ChainLimits(16, budgetNanos, HeartbeatBudget.NONE));
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        tlsClient.close();
        tlsServer.close();
        plainClient.close();
        plainServer.close();
    }

    @Benchmark
    public Object signAndVerify() {
        ChainHeader h = header(++nextChainId, Duration.ofSeconds(20).toNanos());
        ChainCredential c = signer.sign(h, CLIENT, FIRST);
        String why = verifier.check(h, c, CLIENT, "s1", true);
        if (why != null) {
            throw new IllegalStateException(why);
        }
        return c;
    }

    @Benchmark
    public Object verifyCached() {
        String why = verifier.check(cachedHeader, cached, CLIENT, "s1", true);
        if (why != null) {
            throw new IllegalStateException(why);
        }
        return cached;
    }

    @Benchmark
    public Object plainCallMutualTls() {
        return tlsClient.call("s1", "echo", payload).join().value();
    }

    @Benchmark
    public Object plainCallPlaintext() {
        return plainClient.call("s1", "echo", payload).join().value();
    }
}

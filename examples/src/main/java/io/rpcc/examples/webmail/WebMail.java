package io.rpcc.examples.webmail;

import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.TypeRegistry;
import io.rpcc.examples.Charts;
import io.rpcc.examples.Measurement;
import io.rpcc.examples.Options;
import io.rpcc.examples.Results;
import io.rpcc.examples.Timing;
import io.rpcc.testkit.WanCluster;
import io.rpcc.testkit.WanTopology;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The web mail application (paper 4.2, figure 6) and its figure 14, on the emulated figure 7
 * network, placed as in section 5.4: the client in Mountain View, the mail and authentication
 * servers in Redmond, the storage and ad servers in Beijing. What is timed is what section 5.4
 * measures, opening an inbox: the client logs in at the authentication server (the front end) and
 * gets a cookie, then asks the mail server for the mailbox. The mail server checks the cookie with
 * the authentication server, then gets the mailbox from storage and has the ad server add ads: with
 * two RPCs (the mailbox crosses Redmond–Beijing twice more), or with a chain storage → ads → mail
 * server. A third variant runs the same servers over gRPC-java
 * ({@link GrpcWebMail}) on the same emulated links, as a second plain-RPC baseline. Prints a
 * table, or with {@code --json} one {@link Measurement} per line; writes the chart
 * {@code figure-14-webmail.png}.
 *
 * <pre>
 * java -jar examples/target/rpcc-examples.jar webmail [--json] [--sizes 1,10,50,100] [--runs 5] [--charts DIR]
 * </pre>
 */
public final class WebMail {
    private WebMail() {
    }

    static final String SCENARIO = "webmail";
    /** Service functions on the message path: auth (login), mail, auth (verify), storage, ads. */
    static final int HOPS = 5;

    public static void main(String[] args) throws Exception {
        Options o = Options.parse(args, "--sizes", "--runs");
        int runs = o.integer("--runs", 5);
        Results results = run(o.integers("--sizes", List.of(1, 10, 50, 100)), runs, o.warmUp());
        Path chart = Charts.line(o.charts(), "figure-14-webmail", "Web mail latency vs email size (figure 14)",
                "email size (KB)", "latency (ms)", results.lines(), Measurement::label, Measurement::param,
                Measurement::medianMs);
        results.print(o, chart, () -> {
            System.out.println("Web mail latency seen by a client in Mountain View (figure 14), median of " + runs + " runs");
            System.out.printf(Locale.ROOT, "  %8s %9s %9s %8s %9s %8s %9s %8s %9s %10s %10s%n", "email KB", "chain ms", "ideal",
                    "vs ideal", "rpc ms", "vs ideal", "grpc ms", "vs ideal", "ideal rpc", "chain/rpc", "chain/grpc");
            for (Measurement chain : results.lines()) {
                if (chain.variant().equals("chain")) {
                    int kb = chain.param();
                    Measurement rpc = results.measured("rpc", kb, null);
                    Measurement grpc = results.measured("grpc", kb, null);
                    System.out.printf(Locale.ROOT, "  %8d %9.1f %9.1f %8s %9.1f %8s %9.1f %8s %9.1f %9.0f%% %9.0f%%%n", kb,
                            chain.medianMs(), results.ideal("chain", kb, null).medianMs(), results.versusIdeal(chain, "chain"),
                            rpc.medianMs(), results.versusIdeal(rpc, "rpc"), grpc.medianMs(), results.versusIdeal(grpc, "rpc"),
                            results.ideal("rpc", kb, null).medianMs(), -100 * (1 - chain.medianMs() / rpc.medianMs()),
                            -100 * (1 - chain.medianMs() / grpc.medianMs()));
                }
            }
            System.out.println(Results.idealLegend());
            System.out.println("(chain/rpc: the chain's latency change; paper: chains reduced web mail latency by 40% to 58%;"
                    + " grpc is gRPC-java over the same links, with the RPC variant's message path)");
        });
    }

    /** Runs figure 14: the chain, rpcc RPCs and gRPC-java RPCs, alternately, for each mailbox size. */
    public static Results run(List<Integer> sizesKb, int runs, Duration warmUp) throws Exception {
        WanTopology topology = WanTopology.paperFigure7();
        Results results = new Results();
        try (WanCluster wan = WanCluster.of(topology, TypeRegistry.of(Mailbox.class));
             GrpcWebMail grpc = new GrpcWebMail(wan.emulator())) {
            wan.server("auth", WanTopology.REDMOND, b -> b.service("verify", cookie -> MailServices.verify((String) cookie))
                    .service("login", user -> MailServices.login((String) user)));
            wan.server("storage", WanTopology.BEIJING, b -> b.service("fetch", p -> MailServices.fetch((String) p)));
            wan.server("ads", WanTopology.BEIJING, b -> b.service("decorate", p -> MailServices.decorate((Mailbox) p)));
            RpccClient mailOut = wan.client("mail-out", WanTopology.REDMOND);
            ChainingFunctionSource addAds = ChainingFunctionSource.javaResource(WebMail.class, "/chains/AddAds.java");
            wan.server("mail", WanTopology.REDMOND, b -> b.service("inbox", p -> {
                List<?> request = (List<?>) p; // cookie, mailbox ("user/kb"), mode
                if (!(Boolean) mailOut.call("auth", "verify", request.get(0)).join().value()) {
                    throw new SecurityException("bad cookie");
                }
                if ("chain".equals(request.get(2))) {
                    return mailOut.runChain(ChainCall.to("storage", "fetch").params(request.get(1))
                            .chainingFunction(addAds).state(ChainState.of("ads", "ads"))).value();
                }
                Mailbox plain = (Mailbox) mailOut.call("storage", "fetch", request.get(1)).join().value();
                return mailOut.call("ads", "decorate", plain).join().value();
            }));
            RpccClient client = wan.client("browser", WanTopology.MOUNTAIN_VIEW);
            List<String> variants = List.of("chain", "rpc", "grpc");
            Timing.warmUp(warmUp, wan.emulator(), () -> {
                for (String v : variants) {
                    inbox(client, grpc, 1, v);
                }
            });
            for (int kb : sizesKb) {
                List<List<Double>> times = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
                for (int r = -1; r < runs; r++) { // r = -1: the first page of this size
                    for (int v = 0; v < variants.size(); v++) {
                        String variant = variants.get(v);
                        double ms = Timing.millis(() -> inbox(client, grpc, kb, variant));
                        if (r >= 0) {
                            times.get(v).add(ms);
                        }
                    }
                }
                for (int v = 0; v < variants.size(); v++) {
                    results.add(Measurement.measured(SCENARIO, variants.get(v), kb, Timing.median(times.get(v)), HOPS));
                }
                results.add(Measurement.ideal(SCENARIO, "chain", kb, idealMs(topology, kb * 1024L + 1024, true), HOPS));
                results.add(Measurement.ideal(SCENARIO, "rpc", kb, idealMs(topology, kb * 1024L + 1024, false), HOPS));
            }
        }
        return results;
    }

    /** Opens the inbox of a {@code kb} KB mailbox, from the login on, over {@code variant}. */
    private static void inbox(RpccClient client, GrpcWebMail grpc, int kb, String variant) {
        String cookie = variant.equals("grpc") ? grpc.login("alice")
                : (String) client.call("auth", "login", "alice").join().value();
        String mailbox = "alice/" + kb;
        MailServices.checked(variant.equals("grpc") ? grpc.inbox(cookie, mailbox)
                : (Mailbox) client.call("mail", "inbox", List.of(cookie, mailbox, variant)).join().value());
    }

    /**
     * The ideal latency from the topology alone (zero processing): every message's one-way latency,
     * plus the mailbox's transmission on each link it crosses (requests are small).
     */
    public static double idealMs(WanTopology t, long mailboxBytes, boolean chain) {
        String mv = WanTopology.MOUNTAIN_VIEW;
        String rd = WanTopology.REDMOND;
        String bj = WanTopology.BEIJING;
        long ns = 2 * t.link(mv, rd).latency().toNanos()                      // client ↔ auth: the login
                + t.link(mv, rd).latency().toNanos()                          // client → mail
                + 2 * t.link(rd, rd).latency().toNanos()                      // mail ↔ auth
                + t.link(rd, bj).latency().toNanos();                         // mail → storage
        if (chain) {
            ns += t.link(bj, bj).latency().toNanos() + t.link(bj, bj).transmissionNanos(mailboxBytes) // storage → ads
                    + t.link(bj, rd).latency().toNanos() + t.link(bj, rd).transmissionNanos(mailboxBytes); // ads → mail
        } else {
            ns += t.link(bj, rd).latency().toNanos() + t.link(bj, rd).transmissionNanos(mailboxBytes)  // storage → mail
                    + t.link(rd, bj).latency().toNanos() + t.link(rd, bj).transmissionNanos(mailboxBytes) // mail → ads
                    + t.link(bj, rd).latency().toNanos() + t.link(bj, rd).transmissionNanos(mailboxBytes); // ads → mail
        }
        ns += t.link(rd, mv).latency().toNanos() + t.link(rd, mv).transmissionNanos(mailboxBytes);      // mail → client
        return ns / 1e6;
    }
}

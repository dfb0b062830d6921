package com.acme.svc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainException;
import io.rpcc.core.ChainResult;
import io.rpcc.core.StaticRoute;
import io.rpcc.core.TransactionAbortedException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The atomic order chain both integration tests run, with the service jar's own types and transactional
 * state: {@code takeStock} at the stock node ({@link Stockroom}: a {@code TxMap} of {@link StockLevel}s), then
 * {@code pay} at the payment node ({@link Ledger}: a {@code TxMap} of {@link Account}s and the order ledger of
 * {@link Payment}s), one transaction across both nodes. The checks read the state with atomic one-hop chains:
 * they wait for the locks of a transaction whose commit is still on its way to a node, so they see it.
 */
final class AtomicOrders {
    private AtomicOrders() {
    }

    /** The atomic order chain: {@code takeStock} at {@code stockNode}, then {@code pay} at {@code payNode}. */
    static ChainCall order(String stockNode, String payNode, Order order) {
        return ChainCall.along(StaticRoute.of(StaticRoute.hop(stockNode, "takeStock"), StaticRoute.hop(payNode, "pay")), order)
                .atomic().timeout(Duration.ofSeconds(60));
    }

    static StockLevel level(RpccClient client, String node, String sku) {
        return (StockLevel) client.runChain(ChainCall.to(node, "level").params(sku).atomic()).value();
    }

    static Account account(RpccClient client, String node, String customer) {
        return (Account) client.runChain(ChainCall.to(node, "account").params(customer).atomic()).value();
    }

    @SuppressWarnings("unchecked")
    static List<Payment> ledger(RpccClient client, String node, String customer) {
        return (List<Payment>) client.runChain(ChainCall.to(node, "ledger").params(customer).atomic()).value();
    }

    /** An order commits at both nodes: the stock is taken at {@code stockNode}, the payment booked at {@code payNode}. */
    static void commitsAtBoth(RpccClient client, String stockNode, String payNode, String orderId) {
        int pens = level(client, stockNode, "pen").onHand();
        int ink = level(client, stockNode, "ink").onHand();
        Account ada = account(client, payNode, "ada");

        ChainResult result = client.runChain(order(stockNode, payNode,
                new Order(orderId, "ada", List.of(new Line("pen", 3, 150), new Line("ink", 2, 900)))));

        Payment paid = new Payment(orderId, "ada", 3 * 150 + 2 * 900, stockNode, payNode);
        assertEquals(paid, result.value());
        assertEquals(List.of(stockNode, payNode), result.path());
        assertEquals(new StockLevel("pen", pens - 3), level(client, stockNode, "pen"));
        assertEquals(new StockLevel("ink", ink - 2), level(client, stockNode, "ink"));
        assertEquals(new Account("ada", ada.creditCents() - paid.cents(), ada.ordersPaid() + 1), account(client, payNode, "ada"));
        assertTrue(ledger(client, payNode, "ada").contains(paid), "the order ledger at " + payNode + " has the payment");
    }

    /**
     * A payment refused at {@code payNode} (bob's credit is 100 cents) aborts the order: the
     * caller gets a {@link TransactionAbortedException} naming the hop, the node and the refusal, and the
     * stock that {@code takeStock} took at {@code stockNode} is back.
     */
    static void aRefusedPaymentLeavesTheStockUnchanged(RpccClient client, String stockNode, String payNode, String orderId) {
        StockLevel pens = level(client, stockNode, "pen");
        Account bob = account(client, payNode, "bob");

        TransactionAbortedException e = assertThrows(TransactionAbortedException.class, () -> client.runChain(
                order(stockNode, payNode, new Order(orderId, "bob", List.of(new Line("pen", 3, 150))))));

        assertEquals(2, e.hop(), e.getMessage());
        assertEquals(payNode, e.host(), e.getMessage());
        assertTrue(e.getMessage().contains("payment of 450 cents for order " + orderId + " refused"), e.getMessage());
        assertInstanceOf(ChainException.class, e.getCause(), "the refusal is the cause");
        assertEquals(pens, level(client, stockNode, "pen"), "the stock takeStock took at " + stockNode + " was put back");
        assertEquals(bob, account(client, payNode, "bob"));
        assertEquals(List.of(), ledger(client, payNode, "bob"));
    }

    /**
     * {@code perClient} orders of one lamp each from each of two clients, all at once, for the few lamps
     * in stock, all from ada: they conflict at both nodes (the lamp's stock, ada's account). Every order
     * ends, committed or refused for want of lamps ({@link TransactionAbortedException}), never anything
     * else; exactly as many commit as there were lamps, and the stock, ada's account and the ledger agree
     * on which (none half done).
     */
    static void conflictingOrdersFromTwoClientsAllEnd(RpccClient one, RpccClient two, String stockNode, String payNode,
                                                      int perClient) throws Exception {
        int lamps = level(one, stockNode, "lamp").onHand();
        Account ada = account(one, payNode, "ada");
        List<CompletableFuture<ChainResult>> running = new ArrayList<>();
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < perClient; i++) {
            for (RpccClient client : List.of(one, two)) {
                String id = "L-" + (client == one ? "1" : "2") + "-" + i;
                ids.add(id);
                running.add(client.startChain(order(stockNode, payNode, new Order(id, "ada", List.of(new Line("lamp", 1, 4_900))))));
            }
        }
        Set<String> committed = new TreeSet<>();
        List<String> refusals = new ArrayList<>();
        for (int i = 0; i < running.size(); i++) {
            try {
                Payment p = (Payment) running.get(i).get(120, TimeUnit.SECONDS).value();
                assertEquals(ids.get(i), p.orderId());
                committed.add(p.orderId());
            } catch (java.util.concurrent.ExecutionException e) {
                TransactionAbortedException aborted = assertInstanceOf(TransactionAbortedException.class, e.getCause(),
                        "order " + ids.get(i) + " ended otherwise than committed or aborted: " + e.getCause());
                assertTrue(aborted.getMessage().contains("of 'lamp', the stock at " + stockNode + " has 0"), aborted.getMessage());
                refusals.add(ids.get(i));
            }
        }
        System.out.println(running.size() + " conflicting orders for " + lamps + " lamps: committed " + committed
                + ", refused " + refusals);
        int expected = Math.min(lamps, 2 * perClient);
        assertEquals(expected, committed.size(), "committed " + committed + ", refused " + refusals);
        assertEquals(new StockLevel("lamp", lamps - expected), level(one, stockNode, "lamp"));
        assertEquals(new Account("ada", ada.creditCents() - expected * 4_900L, ada.ordersPaid() + expected),
                account(two, payNode, "ada"));
        Set<String> booked = new TreeSet<>();
        ledger(two, payNode, "ada").stream().map(Payment::orderId).filter(id -> id.startsWith("L-")).forEach(booked::add);
        assertEquals(committed, booked, "the ledger at " + payNode + " has exactly the committed orders");
    }

}

package com.acme.svc;

import io.rpcc.core.ChainContext;
import io.rpcc.server.atomic.TxMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A node's accounts and order ledger, as transactional state of the service jar: {@link TxMap}s from
 * customer to the jar's {@link Account} and from order id to {@link Payment}. The node loads the class by
 * name ({@code rpcc.services.classes=com.acme.svc.Ledger}).
 */
public class Ledger implements Payments {
    /** The opening credit of every node's accounts, in cents: ada can pay a lot, bob very little. */
    public static final Map<String, Long> OPENING = Map.of("ada", 10_000_000L, "bob", 100L);

    private final TxMap<String, Account> accounts = TxMap.create("acme-accounts");
    private final TxMap<String, Payment> payments = TxMap.create("acme-payments");

    /** A ledger with the {@link #OPENING} accounts and no payments. */
    public Ledger() {
        OPENING.forEach((customer, cents) -> accounts.putCommitted(customer, new Account(customer, cents, 0)));
    }

    @Override
    public Payment pay(Reservation reservation) {
        Account account = accounts.getForUpdate(reservation.customer()); // written below
        if (account == null) {
            throw new IllegalArgumentException("no account for customer '" + reservation.customer() + "' at "
                    + ChainContext.current().node());
        }
        if (account.creditCents() < reservation.totalCents()) {
            throw new IllegalStateException("payment of " + reservation.totalCents() + " cents for order " + reservation.orderId()
                    + " refused: " + account.customer() + " has " + account.creditCents() + " cents of credit left");
        }
        if (payments.containsKey(reservation.orderId())) {
            throw new IllegalStateException("order " + reservation.orderId() + " is paid already");
        }
        accounts.put(account.customer(), new Account(account.customer(), account.creditCents() - reservation.totalCents(),
                account.ordersPaid() + 1));
        Payment payment = new Payment(reservation.orderId(), reservation.customer(), reservation.totalCents(),
                reservation.reservedAt(), ChainContext.current().node());
        payments.put(payment.orderId(), payment);
        return payment;
    }

    @Override
    public Account account(String customer) {
        return Objects.requireNonNull(accounts.get(customer), () -> "no account for customer '" + customer + "'");
    }

    @Override
    public List<Payment> ledger(String customer) {
        return payments.keys().stream().sorted().map(payments::get).filter(p -> p.customer().equals(customer)).toList();
    }
}

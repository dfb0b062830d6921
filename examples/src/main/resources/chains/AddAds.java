import io.rpcc.core.*;

/**
 * Web mail (paper 4.2, Fig. 6): runs at the storage server after it fetched the mailbox and sends
 * the messages straight to the ad server, whose result (messages with ads) goes back to the mail
 * server, instead of the mail server carrying the mailbox to the ad server itself.
 */
public class AddAds implements ChainingFunction {
    public NextHop apply(ChainState state, Object mailbox) {
        return NextHop.callThenEnd(state.get("ads", String.class), "decorate", mailbox);
    }
}

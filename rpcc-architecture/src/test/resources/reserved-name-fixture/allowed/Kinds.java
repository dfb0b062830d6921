package allowed;

/** The one place allowed to spell the reserved names. */
enum Kinds {
    RETURN("rpcc.return");

    final String wireName;

    Kinds(String wireName) {
        this.wireName = wireName;
    }
}

import PaysheetModel

extension SheetMachine {
    /// The texts a renderer draws around the snapshot (module headings, buttons, labels, the
    /// simulation label, the notes when the sheet closes), by ``SheetString`` id, in the configured
    /// language: `{"module.card": "CARD", "sheet.pay": "Pay (simulated)", …}`. The browser's
    /// simulated sheet draws its words from these, so that the table in ``SheetString`` is the only
    /// copy. `{label}` and `{url}` are left for the renderer to fill with what the page gave.
    public func sheetTexts() -> JSONValue {
        var texts = JSONObject()
        for id in SheetString.allCases where id.isDrawnByRenderer {
            texts[id.rawValue] = .string(id.text(in: configuration.language))
        }
        return .object(texts)
    }
}

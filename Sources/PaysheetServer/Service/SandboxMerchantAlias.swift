import PaysheetSheetTokens

/// The sandbox merchant of a data folder (`PaysheetSheetTokens.SandboxMerchant`; it lives there so
/// that PassKit-shaped app code issues the same tokens without the server).
public typealias SandboxMerchant = PaysheetSheetTokens.SandboxMerchant

import PaysheetModel

/// `ApplePaySetup` (Safari 14+): the features the wallet could set up for a merchant, and the
/// setup flow a page begins in a user gesture (WebKit's `ApplePaySetup.cpp`). The simulated wallet's
/// features come from ``SheetMachine/addSetupFeature(state:type:supportsInstallments:)`` (WebKit's
/// mock coordinator's `addSetupFeature`); the flow itself completes at once with `true`: there is
/// no card to add in a simulation.
extension SheetMachine {
    /// The states of `ApplePaySetupFeature.state`.
    static let setupFeatureStates: Set<String> = ["supported", "supplementarySupported", "unsupported"]

    /// `new ApplePaySetup(configuration)`: the `ApplePaySetupConfiguration` binding. `returned` is the
    /// configuration as bound (the page passes it back with each call).
    public func makeSetup(configuration: JSONValue?) -> PageResult {
        do throws(ScriptError) {
            return PageResult(returned: try bindSetupConfiguration(configuration))
        } catch {
            return PageResult(threw: error)
        }
    }

    func bindSetupConfiguration(_ v: JSONValue?) throws(ScriptError) -> JSONValue {
        let b = WebIDLBinding(profile: configuration.profile)
        let o = try b.dictionary(v ?? .null)
        var out = JSONObject()
        if let s = o["merchantIdentifier"] { out["merchantIdentifier"] = .string(b.string(s)) }
        if let s = o["referrerIdentifier"] { out["referrerIdentifier"] = .string(b.string(s)) }
        if let s = o["signature"] { out["signature"] = .string(b.string(s)) }
        if let f = o["signedFields"] { out["signedFields"] = .array(try b.sequence(f).map { .string(b.string($0)) }) }
        return .object(out)
    }

    /// WebKit's mock `addSetupFeature(state, type, supportsInstallments)`: a feature the wallet offers.
    public mutating func addSetupFeature(
        state: JSONValue,
        type: JSONValue,
        supportsInstallments: JSONValue
    ) -> PageResult {
        let b = WebIDLBinding(profile: configuration.profile)
        do throws(ScriptError) {
            let st = try b.member(state, Self.setupFeatureStates)
            let ty = try b.member(type, WebIDLBinding.setupFeatureTypes)
            setupFeatures.append([
                "state": .string(st), "type": .string(ty),
                "supportsInstallments": .bool(b.boolean(supportsInstallments)),
            ])
            return PageResult()
        } catch {
            return PageResult(threw: error)
        }
    }

    /// `getSetupFeatures()`: the wallet's features for the configuration.
    public mutating func getSetupFeatures(configuration setup: JSONValue) -> PageResult {
        if let refusal = frameRefusal { return PageResult(threw: refusal) }
        setupConfiguration = setup
        return PageResult(returned: .array(setupFeatures))
    }

    /// `begin(features)`: only in a user gesture, one at a time; resolves with whether the user set
    /// up a feature (always, here).
    public mutating func beginSetup(
        configuration setup: JSONValue,
        features: JSONValue?,
        userGesture: Bool
    ) -> PageResult {
        if let refusal = frameRefusal { return PageResult(threw: refusal) }
        guard userGesture else {
            return PageResult(
                threw: ScriptError(.invalidAccessError, "Must call ApplePaySetup.begin from a user gesture handler.")
            )
        }
        if sheet?.visible == true { return PageResult(threw: .invalidState()) }
        if let features {
            do throws(ScriptError) { _ = try WebIDLBinding(profile: configuration.profile).sequence(features) } catch {
                return PageResult(threw: error)
            }
        }
        setupConfiguration = setup
        return PageResult(returned: .bool(true))
    }
}

import ArgumentParsing
import PrivateSync

extension ValueParser where Value == AppSyncEngine {
    /// What syncs a build's user-created store, by the name `device add --engine` and `simulate --build` take:
    /// `app` (the app's own engine) or `cksyncengine` (CKSyncEngine with the app as its delegate).
    static var build: ValueParser<AppSyncEngine> {
        .oneOf([("app", AppSyncEngine.appEngine), ("cksyncengine", .cksyncengine)])
    }
}

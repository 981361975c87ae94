"""The task classes of neurogym-multitask: three families sharing one ring layout.

* :mod:`.reach`: go, anti, rtgo, rtanti, dlygo, dlyanti (reach to a stimulus or away from it);
* :mod:`.decision`: dm1, dm2, ctxdm1, ctxdm2, multidm and their delayed versions;
* :mod:`.match`: dms, dnms, dmc, dnmc (delayed match to sample or to category).
"""

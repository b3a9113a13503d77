"""Quick checks generated from schemas/ by citelint.reports.schema.quick_checks_source: do not edit.

citelint.reports.schema uses them while DIGESTS matches the schema files, and compiles
the checks at run time otherwise (compiling costs a check several milliseconds
of start-up; importing this module, a fraction of one).
"""
import re as _re

from citelint.reports.quickcheck import MISSING, unique_strings as _unique

DIGESTS = {'config.schema.json': 'e85f973c706866b28e18a8ec0d2c464a0a21e4abbe4ff27bef2bac69dde3732d', 'report.schema.json': '5a2f2e785d0313bc258cd5aff5043c5058b36ed20e4c5f2c4fee3be01ca209ff'}

_k_0_4 = frozenset(('cited', 'unavailable', ))
_k_0_7 = _re.compile('^\\S(?:[\\s\\S]*\\S)?(?![\\s\\S])', 32).search
_k_0_10 = _re.compile('^[0-9a-f]{64}$', 32).match
_k_0_14 = _re.compile('^\\S(?:[\\s\\S]*\\S)?(?![\\s\\S])', 32).search

def _f_0_1(v_0_2):
    if not isinstance(v_0_2, dict): return False
    v_0_3 = v_0_2.get('state', MISSING)
    if type(v_0_3) is not str or v_0_3 not in _k_0_4: return False
    t_0_16 = v_0_2.get('state')
    if t_0_16 == 'cited':
        if len(v_0_2) != 5: return False
        v_0_5 = v_0_2.get('state', MISSING)
        if type(v_0_5) is not str or v_0_5 != 'cited': return False
        v_0_6 = v_0_2.get('label', MISSING)
        if not isinstance(v_0_6, str): return False
        if not (1 <= len(v_0_6) <= 200): return False
        if _k_0_7(v_0_6) is None: return False
        v_0_8 = v_0_2.get('source', MISSING)
        if not isinstance(v_0_8, str): return False
        if not (1 <= len(v_0_8) <= 8192): return False
        v_0_9 = v_0_2.get('captureSha256', MISSING)
        if not isinstance(v_0_9, str): return False
        if len(v_0_9) != 64: return False
        if _k_0_10(v_0_9) is None: return False
        v_0_11 = v_0_2.get('snippet', MISSING)
        if not isinstance(v_0_11, str): return False
        if len(v_0_11) < 1: return False
        if not v_0_11 or v_0_11.isspace(): return False
    elif t_0_16 == 'unavailable':
        if len(v_0_2) != 3: return False
        v_0_12 = v_0_2.get('state', MISSING)
        if type(v_0_12) is not str or v_0_12 != 'unavailable': return False
        v_0_13 = v_0_2.get('label', MISSING)
        if not isinstance(v_0_13, str): return False
        if not (1 <= len(v_0_13) <= 200): return False
        if _k_0_14(v_0_13) is None: return False
        v_0_15 = v_0_2.get('reason', MISSING)
        if not isinstance(v_0_15, str): return False
        if len(v_0_15) < 1: return False
        if not v_0_15 or v_0_15.isspace(): return False
    else:
        return False
    return True

_k_1_3 = frozenset(('$schema', 'capture', 'captures', 'evidence', 'exclude', 'facts_pointer', 'labels', 'links', 'markdown', 'quotes', 'reports', 'require_captures_on_base', 'reviews', 'rules', 'sources', ))
_k_1_15 = frozenset(('error', 'notice', 'off', 'warning', ))
_k_1_16 = frozenset(())
_k_1_18 = _re.compile('^CL[0-9]{3}$', 32).match
_k_1_34 = frozenset(('check_at', 'description', 'period', 'unit', ))
_k_1_39 = frozenset(())
_k_1_41 = frozenset(('allow_private_addresses', 'ca_file', 'content_types', 'extractors', 'keep_raw', 'max_bytes', 'proxy', 'sign_key', 'timeout_s', 'user_agent', ))
_k_1_53 = frozenset(('html-text', 'identity', 'pdf-text', 'pypdf', 'trafilatura', ))
_k_1_54 = frozenset(())
_k_1_56 = _re.compile('^[A-Za-z0-9!#$&^_.+-]+/[A-Za-z0-9!#$&^_.+-]+$', 32).match
_k_1_60 = frozenset(('allow', 'ignore_query_params', 'images', 'relative', ))
_k_1_64 = frozenset(('error', 'pass', ))
_k_1_68 = _re.compile('^[^&=#]+$', 32).match
_k_1_70 = frozenset(('enabled', 'max_elision_chars', 'min_chars', 'min_segment_chars', ))
_k_1_76 = frozenset(('allowed_signers', 'require_signatures', ))
_k_1_80 = frozenset(('allowed_signers', 'dir', ))
_k_1_84 = _re.compile('^(/([^~]|~[01])*)*$', 32).search

def _f_1_23(v_1_24):
    if not isinstance(v_1_24, list): return False
    if not _unique(v_1_24): return False
    for v_1_25 in v_1_24:
        if not isinstance(v_1_25, str): return False
        if len(v_1_25) < 1: return False
    return True

def _f_1_30(v_1_31):
    if v_1_31 is not None: return False
    return True

def _f_1_32(v_1_33):
    if not isinstance(v_1_33, dict): return False
    if not (v_1_33.keys() <= _k_1_34): return False
    v_1_35 = v_1_33.get('description', MISSING)
    if v_1_35 is not MISSING:
        if not isinstance(v_1_35, str): return False
    v_1_36 = v_1_33.get('unit', MISSING)
    if v_1_36 is not MISSING:
        if not isinstance(v_1_36, str): return False
    v_1_37 = v_1_33.get('period', MISSING)
    if v_1_37 is not MISSING:
        if not isinstance(v_1_37, str): return False
    v_1_38 = v_1_33.get('check_at', MISSING)
    if v_1_38 is not MISSING:
        if not isinstance(v_1_38, str): return False
        if len(v_1_38) < 1: return False
    return True

def _f_1_26(v_1_27):
    if not isinstance(v_1_27, dict): return False
    for k_1_28, v_1_29 in v_1_27.items():
        if k_1_28 in _k_1_39: continue
        if (_f_1_30(v_1_29) + _f_1_32(v_1_29)) != 1: return False
    return True

def _f_1_1(v_1_2):
    if not isinstance(v_1_2, dict): return False
    if not (v_1_2.keys() <= _k_1_3): return False
    v_1_4 = v_1_2.get('$schema', MISSING)
    if v_1_4 is not MISSING:
        if not isinstance(v_1_4, str): return False
    v_1_5 = v_1_2.get('captures', MISSING)
    if v_1_5 is not MISSING:
        if not isinstance(v_1_5, str): return False
        if len(v_1_5) < 1: return False
    v_1_6 = v_1_2.get('reports', MISSING)
    if v_1_6 is not MISSING:
        if not isinstance(v_1_6, list): return False
        for v_1_7 in v_1_6:
            if not isinstance(v_1_7, str): return False
            if len(v_1_7) < 1: return False
    v_1_8 = v_1_2.get('markdown', MISSING)
    if v_1_8 is not MISSING:
        if not isinstance(v_1_8, list): return False
        for v_1_9 in v_1_8:
            if not isinstance(v_1_9, str): return False
            if len(v_1_9) < 1: return False
    v_1_10 = v_1_2.get('exclude', MISSING)
    if v_1_10 is not MISSING:
        if not isinstance(v_1_10, list): return False
        for v_1_11 in v_1_10:
            if not isinstance(v_1_11, str): return False
            if len(v_1_11) < 1: return False
    v_1_12 = v_1_2.get('rules', MISSING)
    if v_1_12 is not MISSING:
        if not isinstance(v_1_12, dict): return False
        for k_1_13, v_1_14 in v_1_12.items():
            if k_1_13 in _k_1_16: continue
            if type(v_1_14) is not str or v_1_14 not in _k_1_15: return False
        for v_1_17 in v_1_12:
            if isinstance(v_1_17, str):
                if _k_1_18(v_1_17) is None: return False
    v_1_19 = v_1_2.get('require_captures_on_base', MISSING)
    if v_1_19 is not MISSING:
        if not isinstance(v_1_19, bool): return False
    v_1_20 = v_1_2.get('sources', MISSING)
    if v_1_20 is not MISSING:
        if not isinstance(v_1_20, list): return False
        if not _unique(v_1_20): return False
        for v_1_21 in v_1_20:
            if not isinstance(v_1_21, str): return False
            if len(v_1_21) < 1: return False
    v_1_22 = v_1_2.get('labels', MISSING)
    if v_1_22 is not MISSING:
        if (_f_1_23(v_1_22) + _f_1_26(v_1_22)) != 1: return False
    v_1_40 = v_1_2.get('capture', MISSING)
    if v_1_40 is not MISSING:
        if not isinstance(v_1_40, dict): return False
        if not (v_1_40.keys() <= _k_1_41): return False
        v_1_42 = v_1_40.get('timeout_s', MISSING)
        if v_1_42 is not MISSING:
            if not isinstance(v_1_42, (int, float)) or isinstance(v_1_42, bool): return False
            if not (v_1_42 <= 3600): return False
            if not (v_1_42 > 0): return False
        v_1_43 = v_1_40.get('max_bytes', MISSING)
        if v_1_43 is not MISSING:
            if not isinstance(v_1_43, int) or isinstance(v_1_43, bool): return False
            if not (v_1_43 >= 1): return False
            if not (v_1_43 <= 67108864): return False
        v_1_44 = v_1_40.get('content_types', MISSING)
        if v_1_44 is not MISSING:
            if not isinstance(v_1_44, list): return False
            if len(v_1_44) < 1: return False
            for v_1_45 in v_1_44:
                if not isinstance(v_1_45, str): return False
                if len(v_1_45) < 1: return False
        v_1_46 = v_1_40.get('allow_private_addresses', MISSING)
        if v_1_46 is not MISSING:
            if not isinstance(v_1_46, bool): return False
        v_1_47 = v_1_40.get('ca_file', MISSING)
        if v_1_47 is not MISSING:
            if not isinstance(v_1_47, str): return False
            if len(v_1_47) < 1: return False
        v_1_48 = v_1_40.get('proxy', MISSING)
        if v_1_48 is not MISSING:
            if not isinstance(v_1_48, str): return False
            if len(v_1_48) < 1: return False
        v_1_49 = v_1_40.get('user_agent', MISSING)
        if v_1_49 is not MISSING:
            if not isinstance(v_1_49, str): return False
            if len(v_1_49) < 1: return False
        v_1_50 = v_1_40.get('extractors', MISSING)
        if v_1_50 is not MISSING:
            if not isinstance(v_1_50, dict): return False
            for k_1_51, v_1_52 in v_1_50.items():
                if k_1_51 in _k_1_54: continue
                if type(v_1_52) is not str or v_1_52 not in _k_1_53: return False
            for v_1_55 in v_1_50:
                if isinstance(v_1_55, str):
                    if _k_1_56(v_1_55) is None: return False
        v_1_57 = v_1_40.get('keep_raw', MISSING)
        if v_1_57 is not MISSING:
            if not isinstance(v_1_57, bool): return False
        v_1_58 = v_1_40.get('sign_key', MISSING)
        if v_1_58 is not MISSING:
            if not isinstance(v_1_58, str): return False
            if len(v_1_58) < 1: return False
    v_1_59 = v_1_2.get('links', MISSING)
    if v_1_59 is not MISSING:
        if not isinstance(v_1_59, dict): return False
        if not (v_1_59.keys() <= _k_1_60): return False
        v_1_61 = v_1_59.get('allow', MISSING)
        if v_1_61 is not MISSING:
            if not isinstance(v_1_61, list): return False
            for v_1_62 in v_1_61:
                if not isinstance(v_1_62, str): return False
                if len(v_1_62) < 1: return False
        v_1_63 = v_1_59.get('relative', MISSING)
        if v_1_63 is not MISSING:
            if type(v_1_63) is not str or v_1_63 not in _k_1_64: return False
        v_1_65 = v_1_59.get('images', MISSING)
        if v_1_65 is not MISSING:
            if not isinstance(v_1_65, bool): return False
        v_1_66 = v_1_59.get('ignore_query_params', MISSING)
        if v_1_66 is not MISSING:
            if not isinstance(v_1_66, list): return False
            if not _unique(v_1_66): return False
            for v_1_67 in v_1_66:
                if not isinstance(v_1_67, str): return False
                if len(v_1_67) < 1: return False
                if _k_1_68(v_1_67) is None: return False
    v_1_69 = v_1_2.get('quotes', MISSING)
    if v_1_69 is not MISSING:
        if not isinstance(v_1_69, dict): return False
        if not (v_1_69.keys() <= _k_1_70): return False
        v_1_71 = v_1_69.get('enabled', MISSING)
        if v_1_71 is not MISSING:
            if not isinstance(v_1_71, bool): return False
        v_1_72 = v_1_69.get('min_chars', MISSING)
        if v_1_72 is not MISSING:
            if not isinstance(v_1_72, int) or isinstance(v_1_72, bool): return False
            if not (v_1_72 >= 1): return False
        v_1_73 = v_1_69.get('min_segment_chars', MISSING)
        if v_1_73 is not MISSING:
            if not isinstance(v_1_73, int) or isinstance(v_1_73, bool): return False
            if not (v_1_73 >= 1): return False
        v_1_74 = v_1_69.get('max_elision_chars', MISSING)
        if v_1_74 is not MISSING:
            if not isinstance(v_1_74, int) or isinstance(v_1_74, bool): return False
            if not (v_1_74 >= 0): return False
    v_1_75 = v_1_2.get('evidence', MISSING)
    if v_1_75 is not MISSING:
        if not isinstance(v_1_75, dict): return False
        if not (v_1_75.keys() <= _k_1_76): return False
        v_1_77 = v_1_75.get('allowed_signers', MISSING)
        if v_1_77 is not MISSING:
            if not isinstance(v_1_77, str): return False
            if len(v_1_77) < 1: return False
        v_1_78 = v_1_75.get('require_signatures', MISSING)
        if v_1_78 is not MISSING:
            if not isinstance(v_1_78, bool): return False
    v_1_79 = v_1_2.get('reviews', MISSING)
    if v_1_79 is not MISSING:
        if not isinstance(v_1_79, dict): return False
        if not (v_1_79.keys() <= _k_1_80): return False
        v_1_81 = v_1_79.get('dir', MISSING)
        if v_1_81 is not MISSING:
            if not isinstance(v_1_81, str): return False
            if len(v_1_81) < 1: return False
        v_1_82 = v_1_79.get('allowed_signers', MISSING)
        if v_1_82 is not MISSING:
            if not isinstance(v_1_82, str): return False
            if len(v_1_82) < 1: return False
    v_1_83 = v_1_2.get('facts_pointer', MISSING)
    if v_1_83 is not MISSING:
        if not isinstance(v_1_83, str): return False
        if _k_1_84(v_1_83) is None: return False
    return True


CHECKS = {
    'report.schema.json#fact': _f_0_1,
    'config.schema.json': _f_1_1,
}
